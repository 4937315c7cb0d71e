/**
 * The encoder's architecture, described once: every backend builds its computation from the
 * plan this module makes of the weights, so that a change of the model (another layer, other
 * weights, a fold) is made here and followed by all of them. Two backends read it:
 * transformer.ts (tfjs, op by op, with its speed layout) and onnx-graph.ts (an ONNX graph run by
 * onnxruntime-node). `test/encoder-onnx.test.ts` keeps their outputs equal.
 *
 * The computation, per sequence of token ids (one window of at most 128 tokens, positions
 * 0..n-1):
 *
 *   x = embeddings[id] + timing[position]            (embeddings pre-scaled by EMBEDDING_SCALE)
 *   per layer:
 *     z = normalise(x)                               (layer norm without scale and bias: folded)
 *     per head h: q_h = z Q_h, k_h = z K_h, v_h = z V_h   (query scale folded into Q_h)
 *     c = concat_h softmax(q_h k_hᵀ) v_h
 *     x = c Out + residual(x)                        (residual: x Res for layer 0, else x)
 *     x = x + relu(normalise(x) FfnIn) FfnOut
 *   token states = x;  sum = Σ_tokens x
 *   a text's embedding = l2normalise(tanh(mean Pooler)), mean over all its windows' tokens
 *
 * where every product is `x W + b`. The layer norms' scale and bias are folded into the
 * projection that follows them; the query scale 1/sqrt(depth) into the query projections.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { foldNorm, type PreparedLayer } from './layer.js';
import { ENCODER_SHAPE, type EncoderWeights } from './weights.js';

/** The graph adds the token embeddings twice. */
export const EMBEDDING_SCALE = 2;

/** What every backend computes from: host tables and folded projections (tfjs tensors). */
export interface EncoderPlan {
  /** EMBEDDING_SCALE x embedding table, [vocab, dim] row-major. */
  embeddings: Float32Array;
  /** The sinusoidal position signal (sin | cos of position x inverse timescale), [maxTokens, dim]. */
  timing: Float32Array;
  /** Width of the embeddings (layer 0's input). */
  dim: number;
  /** Rows of the embedding table. */
  vocab: number;
  layers: PreparedLayer[];
  /** The tanh projection of the mean token state. */
  pooler: { kernel: tf.Tensor2D; bias: tf.Tensor1D };
  /** Every tensor the plan owns (for dispose). */
  tensors: tf.Tensor[];
}

function readAndDispose(t: tf.Tensor): Float32Array {
  const values = t.dataSync() as Float32Array;
  t.dispose();
  return values;
}

/** Plans the encoder from its weights (the folds above). Dispose `tensors` when done. */
export function planEncoder(weights: EncoderWeights): EncoderPlan {
  // (Read outside tf.tidy: tidy walks whatever its callback returns, element by element.)
  const embeddings = readAndDispose(tf.tidy(() => tf.mul(weights.embeddings, EMBEDDING_SCALE)));
  const timing = readAndDispose(
    tf.tidy(() => {
      const pos = tf.reshape(tf.range(0, ENCODER_SHAPE.maxTokens, 1, 'float32'), [-1, 1]);
      const angles = tf.mul(pos, tf.reshape(weights.inverseTimescales, [1, -1]));
      return tf.concat([tf.sin(angles), tf.cos(angles)], 1);
    }),
  );
  const tensors: tf.Tensor[] = [];
  const layers = weights.layers.map((l, index): PreparedLayer => {
    if (index > 0 && l.residualProjection) throw new Error(`encoder: layer ${index} widens the stream; only layer 0 may`);
    if (index === 0 && !l.residualProjection) throw new Error('encoder: layer 0 has no residual projection');
    const width = l.inputDim;
    const depth = width / l.heads;
    const heads = Array.from({ length: l.heads }, (_, h) => h);
    const layer: PreparedLayer = {
      width,
      heads: l.heads,
      query: heads.map((h) => foldNorm(l.attentionNorm, l.qkv, h * depth, depth, 1 / Math.sqrt(depth))),
      key: heads.map((h) => foldNorm(l.attentionNorm, l.qkv, width + h * depth, depth)),
      value: heads.map((h) => foldNorm(l.attentionNorm, l.qkv, 2 * width + h * depth, depth)),
      out: { kernel: tf.clone(l.attentionOut.kernel), bias: tf.clone(l.attentionOut.bias) },
      residual: l.residualProjection ? { kernel: tf.clone(l.residualProjection.kernel), bias: tf.clone(l.residualProjection.bias) } : null,
      ffnIn: foldNorm(l.ffnNorm, l.ffnIn),
      ffnOut: { kernel: tf.clone(l.ffnOut.kernel), bias: tf.clone(l.ffnOut.bias) },
    };
    for (const d of [...layer.query, ...layer.key, ...layer.value, layer.out, layer.ffnIn, layer.ffnOut, ...(layer.residual ? [layer.residual] : [])]) {
      tensors.push(d.kernel, d.bias);
    }
    return layer;
  });
  const pooler = { kernel: tf.clone(weights.pooler.kernel), bias: tf.clone(weights.pooler.bias) };
  tensors.push(pooler.kernel, pooler.bias);
  const dim = weights.embeddings.shape[1];
  return { embeddings, timing, dim, vocab: weights.embeddings.shape[0], layers, pooler, tensors };
}
