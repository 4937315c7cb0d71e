/**
 * The products of `alignTexts` (late.ts) on our matrix kernel (kernels/gemm.ts), where it serves
 * the backend: about 60% of alignment was tfjs' products and transposes of the state's token
 * states (`node --cpu-prof`, jevbench-sample). The kernel's own packing lays the normalised
 * state out once as rows (for `attention x states`, the phrase spans) and once transposed (for
 * `text tokens x statesᵀ`), so no transpose runs on tfjs' slow path.
 *
 * The state's token count is padded to a multiple of 8 (the kernel's column panel). Padded
 * similarity columns get a bias of -Infinity, so they drop out of the maximum, the log-sum-exp
 * and the attention (exp(-Infinity) = 0); padded state rows are zeros. Every output row still
 * depends on its own text token only, so a question's values never depend on its batch.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { dense, packRows, packTransposed, paddedBias, roundUp8 } from '../kernels/gemm.js';
import { rowNormalise } from './text-norms.js';

/** What alignTexts hands over. */
export interface AlignInputs {
  /** The state's token states [n, width], row-major. */
  state: Float32Array;
  n: number;
  width: number;
  /** The texts' normalised token states [total, width] and normalised means [texts, width]. */
  tokens: tf.Tensor2D;
  means: tf.Tensor2D;
  /** 1 where a state token lies in a negation's scope [n]. */
  negation: Float32Array;
  /** First token of each phrase span, and the span length. */
  spanStarts: readonly number[];
  span: number;
  /** Sharpness of the soft maximum and the attention. */
  beta: number;
}

/**
 * Weights of the state's phrase spans: row i averages tokens [starts[i], starts[i] + span) of
 * the `n` state tokens, in a matrix `columns` wide (columns past `n` zero).
 */
export function spanMatrix(starts: readonly number[], span: number, n: number, columns: number): Float32Array {
  const out = new Float32Array(starts.length * columns);
  starts.forEach((st, i) => {
    const end = Math.min(n, st + span);
    for (let t = st; t < end; t++) out[i * columns + t] = 1 / (end - st);
  });
  return out;
}

/** `x rowsᵀ` + bias, the columns past `rows`' count at -Infinity: [x's rows, roundUp8(count)]. */
function timesTransposed(x: tf.Tensor2D, rows: tf.Tensor2D): tf.Tensor2D {
  const [count, width] = rows.shape;
  return dense(x, { packed: packTransposed(rows), bias: tf.tensor1d(paddedBias(count)), k: width, n: roundUp8(count) });
}

/**
 * [best cosine, soft maximum, aligned state vectors (normalised), best span cosine, soft span
 * maximum, negation share, argmax]: per text token, the span values per text. Call inside tf.tidy.
 */
export function alignOnKernel(a: AlignInputs): tf.Tensor[] {
  const { n, width, beta } = a;
  const padded = roundUp8(n);
  const s = rowNormalise(tf.tensor2d(a.state.subarray(0, n * width), [n, width]));
  const sim = timesTransposed(a.tokens, s); // [total, padded]
  const scaled = tf.mul(sim, beta);
  const lse = tf.logSumExp(scaled, 1, true);
  const att = tf.exp(tf.sub(scaled, lse)) as tf.Tensor2D;
  // The state as B with `padded` rows serves the attention and the phrase spans.
  const states = { packed: packRows(s, padded), bias: tf.zeros([width]) as tf.Tensor1D, k: padded, n: width };
  const aligned = rowNormalise(dense(att, states));
  const negation = new Float32Array(padded);
  negation.set(a.negation.subarray(0, n));
  const neg = tf.matMul(att, tf.tensor2d(negation, [padded, 1]));
  const spanMat = spanMatrix(a.spanStarts, a.span, n, padded);
  const spans = rowNormalise(dense(tf.tensor2d(spanMat, [a.spanStarts.length, padded]), states));
  const spanSim = timesTransposed(a.means, spans); // [texts, spans padded]
  return [tf.max(sim, 1), tf.div(tf.reshape(lse, [-1]), beta), aligned, tf.max(spanSim, 1), tf.div(tf.logSumExp(tf.mul(spanSim, beta), 1), beta), neg, tf.argMax(sim, 1)];
}
