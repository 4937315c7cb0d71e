/**
 * One transformer layer's operations on rows of token states, shared by the single pass
 * (transformer.ts) and the row split (rows.ts), so that both compute every row the same way.
 * The weights come folded: each layer norm's scale and bias into the projection that follows,
 * the query scale 1/sqrt(depth) into the query projections. Products run on our WebAssembly
 * kernel (kernels/gemm.ts) where it serves the backend, else on tfjs' fused matMul.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { dense as gemmDense, gemmReady, packRows, packTransposed, paddedBias, roundUp8, type PackedDense } from '../kernels/gemm.js';
import { ENCODER_SHAPE, type DenseWeights, type LayerNormWeights } from './weights.js';

/** A dense projection `x @ kernel + bias`. */
export interface Dense {
  kernel: tf.Tensor2D;
  bias: tf.Tensor1D;
  /** The same weights for our wasm kernel (kernels/gemm.ts), where it serves the backend. */
  packed?: PackedDense;
}

export interface PreparedLayer {
  width: number;
  heads: number;
  /** Per head: query (prescaled), key and value projections, the attention layer norm folded in. */
  query: Dense[];
  key: Dense[];
  value: Dense[];
  /** Output projection of the attention context. */
  out: Dense;
  /**
   * Layer 0's projection of its (unnormalised) input into the residual stream; null where the
   * residual is the input itself. The tfjs path reads layer 0's from input-tables.ts.
   */
  residual: Dense | null;
  /** The FFN layer norm folded into the first FFN projection. */
  ffnIn: Dense;
  ffnOut: Dense;
}

/** `ln(x) @ kernel + bias` as `normalise(x) @ (scale * kernel) + (bias_ln @ kernel + bias)`, columns [from, from+count). */
export function foldNorm(norm: LayerNormWeights, dense: DenseWeights, from = 0, count = dense.kernel.shape[1], scale = 1): Dense {
  return tf.tidy(() => {
    const kernel = tf.slice(dense.kernel, [0, from], [-1, count]);
    const bias = tf.slice(dense.bias, [from], [count]);
    const folded = tf.mul(tf.mul(tf.reshape(norm.scale, [-1, 1]), kernel), scale) as tf.Tensor2D;
    const foldedBias = tf.mul(tf.add(tf.reshape(tf.matMul(tf.reshape(norm.bias, [1, -1]), kernel), [-1]), bias), scale) as tf.Tensor1D;
    return { kernel: tf.keep(folded), bias: tf.keep(foldedBias) };
  });
}

/** Normalises rows to zero mean and unit variance (the layer norm without scale and bias). */
export function normalise(x: tf.Tensor2D): tf.Tensor2D {
  const mean = tf.mean(x, -1, true);
  const centred = tf.sub(x, mean);
  const variance = tf.mean(tf.square(centred), -1, true);
  return tf.mul(centred, tf.rsqrt(tf.add(variance, ENCODER_SHAPE.layerNormEpsilon)));
}

/** `x @ kernel + bias` (then ReLU), on our kernel when the weights were packed for it. */
export function dense(x: tf.Tensor2D, w: Dense, activation?: 'relu'): tf.Tensor2D {
  if (w.packed && gemmReady()) return gemmDense(x, w.packed, activation === 'relu');
  return tf.fused.matMul({ a: x, b: w.kernel, bias: w.bias, activation: activation ?? 'linear' }) as tf.Tensor2D;
}

/**
 * One head's attention of `queries` over a sequence's `keys` and `values` (row by row): on our
 * kernel where it serves the backend, the keys padded to a multiple of 8 with scores of
 * -Infinity (weight 0 after the softmax); else two XNNPACK products, `kᵀ` from an explicit
 * transpose (tfjs-wasm runs transposed operands on a ~10x slower scalar loop).
 */
export function attend(queries: tf.Tensor2D, keys: tf.Tensor2D, values: tf.Tensor2D): tf.Tensor2D {
  const [n, depth] = keys.shape;
  if (!gemmReady() || values.shape[1] % 8 !== 0) return tf.matMul(tf.softmax(tf.matMul(queries, tf.transpose(keys) as tf.Tensor2D)), values);
  const padded = roundUp8(n);
  const scores = gemmDense(queries, { packed: packTransposed(keys), bias: tf.tensor1d(paddedBias(n)), k: depth, n: padded });
  return gemmDense(tf.softmax(scores) as tf.Tensor2D, { packed: packRows(values, padded), bias: tf.zeros([values.shape[1]]) as tf.Tensor1D, k: padded, n: values.shape[1] });
}

/** A layer's output projection of the attention context plus its residual (row by row). */
export function attentionResidual(layer: PreparedLayer, context: tf.Tensor2D, residual: tf.Tensor2D): tf.Tensor2D {
  return tf.add(dense(context, layer.out), residual) as tf.Tensor2D;
}

/** Per head, the query, key and value of rows `x` of a layer after the first (row by row). */
export function projectHeads(layer: PreparedLayer, x: tf.Tensor2D): tf.Tensor2D[] {
  const normed = normalise(x);
  return layer.query.flatMap((q, h) => [dense(normed, q), dense(normed, layer.key[h]!), dense(normed, layer.value[h]!)]);
}

/** A layer's FFN hidden activations (row by row). */
export function ffnHidden(layer: PreparedLayer, x: tf.Tensor2D): tf.Tensor2D {
  return dense(normalise(x), layer.ffnIn, 'relu');
}
