/**
 * The tensor work of `alignTexts` (late.ts): the state's side prepared once per call, then the
 * texts' tokens compared with it in blocks of rows, so memory stays linear in the state.
 *
 * On our matrix kernel (kernels/gemm.ts), where it serves the backend: about 60% of alignment
 * was tfjs' products and transposes of the state's token states (`node --cpu-prof`,
 * jevbench-sample). The kernel's own packing lays the normalised state out once as rows (for
 * `attention x states`) and once transposed (for `text tokens x statesᵀ`), so no transpose runs
 * on tfjs' slow path. The state's token count is padded to a multiple of 8 (the kernel's column
 * panel). Padded similarity columns get a bias of -Infinity, so they drop out of the maximum,
 * the log-sum-exp and the attention (exp(-Infinity) = 0); padded state rows are zeros.
 *
 * Memory: the phrase-span vectors were a product with a dense [spans x state tokens] matrix of
 * averaging weights, quadratic in the state (522 MB for a 28k-token state, and 67 GFLOP). They
 * are sums over each span's own tokens now ({@link spanMeans}), in the order the kernel added
 * them, so the values are bit for bit the same. The similarity matrix (text tokens x state
 * tokens, and the attention and its exponentials of the same shape) is built for at most
 * {@link ALIGN_CELLS} cells at a time: every output row depends on its own text token only (the
 * kernel computes each row on its own, the reductions run along a row), so the blocks change no
 * value, and a question's values never depend on its batch.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { dense, gemmReady, packRows, packTransposed, paddedBias, roundUp8, type PackedDense } from '../kernels/gemm.js';
import { rowNormalise } from './text-norms.js';

/**
 * Cells (text tokens x state tokens) of one block of the similarity matrix at most: 4 MiB, and
 * about five such tensors live at once. A request's texts against a state of up to 1,000 tokens
 * still fit one block.
 */
export const ALIGN_CELLS = 1 << 20;

/** What alignTexts hands over about the state. */
export interface StateInputs {
  /** The state's token states [n, width], row-major. */
  state: Float32Array;
  n: number;
  width: number;
  /** 1 where a state token lies in a negation's scope [n]. */
  negation: Float32Array;
  /** First token of each phrase span, and the span length. */
  spanStarts: readonly number[];
  span: number;
}

/** The state as the products read it; kept tensors, released by {@link releaseState}. */
export interface StateSide {
  /** Columns of a similarity row: n, or n rounded up to 8 on the kernel. */
  columns: number;
  /** B of `text tokens x statesᵀ`. */
  sim: PackedDense | tf.Tensor2D;
  /** B of `attention x states`. */
  att: PackedDense | tf.Tensor2D;
  /** B of `text means x spansᵀ`. */
  spans: PackedDense | tf.Tensor2D;
  /** [columns, 1]. */
  negation: tf.Tensor2D;
}

/**
 * Weights of the state's phrase spans: row i averages tokens [starts[i], starts[i] + span) of
 * the `n` state tokens, in a matrix `columns` wide (columns past `n` zero). The reference the
 * span vectors were a product with (tests).
 */
export function spanMatrix(starts: readonly number[], span: number, n: number, columns: number): Float32Array {
  const out = new Float32Array(starts.length * columns);
  starts.forEach((st, i) => {
    const end = Math.min(n, st + span);
    for (let t = st; t < end; t++) out[i * columns + t] = 1 / (end - st);
  });
  return out;
}

/**
 * The span vectors `spanMatrix x states` [spans, width] with only the nonzero terms: each
 * element as the kernel computes it (0, then weight x state added token by token, every
 * product and sum rounded to float32; the skipped terms add exact zeros). `Math.fround` of a
 * float32 product or sum computed in float64 is the float32 result (53 >= 2 x 24 + 2).
 */
export function spanMeans(states: Float32Array, n: number, width: number, starts: readonly number[], span: number): Float32Array {
  const out = new Float32Array(starts.length * width);
  starts.forEach((st, i) => {
    const end = Math.min(n, st + span);
    const w = Math.fround(1 / (end - st));
    const o = i * width;
    for (let t = st; t < end; t++) {
      const row = t * width;
      for (let h = 0; h < width; h++) out[o + h] = out[o + h]! + Math.fround(w * states[row + h]!);
    }
  });
  return out;
}

/** `x B` through whichever form of B the side holds. */
function times(x: tf.Tensor2D, b: PackedDense | tf.Tensor2D): tf.Tensor2D {
  return b instanceof tf.Tensor ? tf.matMul(x, b) : dense(x, b);
}

/** Tensors a side holds. */
function tensorsOf(side: StateSide): tf.Tensor[] {
  const of = (b: PackedDense | tf.Tensor2D) => (b instanceof tf.Tensor ? [b] : [b.packed, b.bias]);
  return [...of(side.sim), ...of(side.att), ...of(side.spans), side.negation];
}

/** Frees what {@link prepareState} kept. */
export function releaseState(side: StateSide): void {
  tf.dispose(tensorsOf(side));
}

/** The state's side of alignment, on the kernel where it serves; release it after use. */
export function prepareState(a: StateInputs): StateSide {
  const { n, width } = a;
  const kernel = gemmReady();
  const starts = a.spanStarts;
  // Normalised apart, so the raw upload and its squares are freed before the packings.
  const s = tf.tidy(() => rowNormalise(tf.tensor2d(a.state.subarray(0, n * width), [n, width])));
  const spans = tf.tidy(() => rowNormalise(tf.tensor2d(spanMeans(s.dataSync() as Float32Array, n, width, starts, a.span), [starts.length, width])));
  const columns = kernel ? roundUp8(n) : n;
  const negation = new Float32Array(columns);
  negation.set(a.negation.subarray(0, n));
  try {
    return kernel
      ? {
          columns,
          sim: { packed: packTransposed(s), bias: tf.tensor1d(paddedBias(n)), k: width, n: columns },
          att: { packed: packRows(s, columns), bias: tf.zeros([width]) as tf.Tensor1D, k: columns, n: width },
          spans: { packed: packTransposed(spans), bias: tf.tensor1d(paddedBias(starts.length)), k: width, n: roundUp8(starts.length) },
          negation: tf.tensor2d(negation, [columns, 1]),
        }
      : // Without our kernel: transposing once keeps the products on XNNPACK; tfjs-wasm runs
        // transposed operands on a scalar fallback that is ~10x slower.
        { columns, sim: tf.transpose(s), att: tf.clone(s), spans: tf.transpose(spans), negation: tf.tensor2d(negation, [columns, 1]) };
  } finally {
    tf.dispose([s, spans]);
  }
}

/**
 * A block of text tokens [rows, width] (normalised) against the state: [best cosine, soft
 * maximum, aligned state vectors (normalised), negation share [rows, 1], argmax]. Call inside
 * tf.tidy.
 */
export function alignRows(side: StateSide, tokens: tf.Tensor2D, beta: number): tf.Tensor[] {
  const sim = times(tokens, side.sim); // [rows, columns]
  // The soft maximum's log-sum-exp also normalises the attention: one exp pass, not two.
  const scaled = tf.mul(sim, beta);
  const lse = tf.logSumExp(scaled, 1, true);
  const att = tf.exp(tf.sub(scaled, lse)) as tf.Tensor2D;
  const aligned = rowNormalise(times(att, side.att));
  const neg = tf.matMul(att, side.negation);
  return [tf.max(sim, 1), tf.div(tf.reshape(lse, [-1]), beta), aligned, neg, tf.argMax(sim, 1)];
}

/** The texts' normalised means [texts, width] against the spans: [best span cosine, soft span maximum]. Call inside tf.tidy. */
export function spanScores(side: StateSide, means: tf.Tensor2D, beta: number): tf.Tensor[] {
  const spanSim = times(means, side.spans); // [texts, spans (padded)]
  return [tf.max(spanSim, 1), tf.div(tf.logSumExp(tf.mul(spanSim, beta), 1), beta)];
}
