/**
 * Our tfjs implementation of the Universal Sentence Encoder lite transformer ("Kona"): two
 * pre-norm layers (256 -> 512 wide, 4 heads each), sinusoidal positions, mean pooling and a tanh
 * projection. Written op by op from the frozen graph so that masks, intermediate token states
 * and caching are ours to control; `test/encoder.test.ts` proves it equal to the graph.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { ENCODER_SHAPE, type DenseWeights, type EncoderWeights, type LayerNormWeights, type TransformerLayerWeights } from './weights.js';

/** Per-token states of a batch of sequences, right-padded. */
export interface TokenStates {
  /** [batch, length, hidden] final hidden states; rows past a sequence's length are padding. */
  states: tf.Tensor3D;
  /** [batch, length] 1 for real tokens, 0 for padding. */
  mask: tf.Tensor2D;
}

function dense(x: tf.Tensor2D, w: DenseWeights, activation?: 'relu'): tf.Tensor2D {
  return tf.fused.matMul({ a: x, b: w.kernel, bias: w.bias, activation: activation ?? 'linear' }) as tf.Tensor2D;
}

function layerNorm(x: tf.Tensor2D, w: LayerNormWeights): tf.Tensor2D {
  const mean = tf.mean(x, -1, true);
  const centred = tf.sub(x, mean);
  const variance = tf.mean(tf.square(centred), -1, true);
  const scaled = tf.mul(tf.mul(w.scale, tf.rsqrt(tf.add(variance, ENCODER_SHAPE.layerNormEpsilon))), centred);
  return tf.add(scaled, w.bias);
}

/** Splits [B*L, d] into [B, heads, L, d/heads]. */
function splitHeads(x: tf.Tensor2D, batch: number, length: number, heads: number): tf.Tensor4D {
  const depth = x.shape[1] / heads;
  return tf.transpose(tf.reshape(x, [batch, length, heads, depth]), [0, 2, 1, 3]);
}

function attention(
  x: tf.Tensor2D,
  layer: TransformerLayerWeights,
  keyBias: tf.Tensor4D,
  batch: number,
  length: number,
): tf.Tensor2D {
  const width = layer.inputDim;
  const qkv = dense(layerNorm(x, layer.attentionNorm), layer.qkv);
  const [q, k, v] = tf.split(qkv, [width, width, width], 1) as [tf.Tensor2D, tf.Tensor2D, tf.Tensor2D];
  const depth = width / layer.heads;
  const queries = tf.mul(splitHeads(q, batch, length, layer.heads), 1 / Math.sqrt(depth));
  const logits = tf.add(tf.matMul(queries, splitHeads(k, batch, length, layer.heads), false, true), keyBias);
  const context = tf.matMul(tf.softmax(logits), splitHeads(v, batch, length, layer.heads));
  const merged = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [batch * length, width]) as tf.Tensor2D;
  return dense(merged, layer.attentionOut);
}

function feedForward(x: tf.Tensor2D, layer: TransformerLayerWeights): tf.Tensor2D {
  return dense(dense(layerNorm(x, layer.ffnNorm), layer.ffnIn, 'relu'), layer.ffnOut);
}

/**
 * The encoder proper. Holds the weights and a precomputed position table; stateless between
 * calls, so one instance serves concurrent requests.
 */
export class TransformerEncoder {
  private readonly positions: tf.Tensor2D;

  constructor(private readonly weights: EncoderWeights) {
    // sin/cos of position x inverse timescale, concatenated: the graph's AddTimingSignal.
    this.positions = tf.tidy(() => {
      const pos = tf.reshape(tf.range(0, ENCODER_SHAPE.maxTokens, 1, 'float32'), [-1, 1]);
      const angles = tf.mul(pos, tf.reshape(weights.inverseTimescales, [1, -1]));
      return tf.concat([tf.sin(angles), tf.cos(angles)], 1) as tf.Tensor2D;
    });
  }

  /**
   * Runs the transformer over sequences of token ids (each 1..maxTokens long) and returns the
   * final per-token states. Call inside `tf.tidy` or dispose the result.
   */
  tokenStates(sequences: readonly (readonly number[])[]): TokenStates {
    const batch = sequences.length;
    const length = Math.max(1, ...sequences.map((s) => s.length));
    if (length > ENCODER_SHAPE.maxTokens) {
      throw new RangeError(`A sequence of ${length} tokens exceeds the encoder window of ${ENCODER_SHAPE.maxTokens}`);
    }
    const ids = new Int32Array(batch * length);
    const maskValues = new Float32Array(batch * length);
    sequences.forEach((seq, b) => {
      for (let t = 0; t < seq.length; t++) {
        ids[b * length + t] = seq[t]!;
        maskValues[b * length + t] = 1;
      }
    });
    return tf.tidy(() => {
      const mask = tf.tensor2d(maskValues, [batch, length]);
      const rowMask = tf.reshape(mask, [batch * length, 1]);
      // Padding keys get -1e9, as the graph's attention_bias_ignore_padding.
      const keyBias = tf.reshape(tf.mul(tf.sub(1, mask), -1e9), [batch, 1, 1, length]) as tf.Tensor4D;
      const embedded = tf.gather(this.weights.embeddings, tf.tensor1d(ids, 'int32'));
      const timing = tf.tile(tf.slice(this.positions, [0, 0], [length, -1]), [batch, 1]);
      // The graph adds the scattered embeddings to the scattered (embeddings + timing signal):
      // the embedding counts twice. Only real tokens are scattered, so padding rows stay zero.
      let x = tf.mul(tf.add(tf.mul(embedded, 2), timing), rowMask) as tf.Tensor2D;
      for (const layer of this.weights.layers) {
        const residual = layer.residualProjection ? tf.mul(dense(x, layer.residualProjection), rowMask) : x;
        x = tf.add(attention(x, layer, keyBias, batch, length), residual) as tf.Tensor2D;
        x = tf.add(x, tf.mul(feedForward(x, layer), rowMask)) as tf.Tensor2D;
      }
      return { states: tf.reshape(x, [batch, length, -1]) as tf.Tensor3D, mask };
    });
  }

  /**
   * The sentence embedding of a set of token states: mean over real tokens, tanh projection,
   * L2 normalisation. `meanState` is [n, hidden].
   */
  pool(meanState: tf.Tensor2D): tf.Tensor2D {
    return tf.tidy(() => {
      const projected = tf.tanh(dense(meanState, this.weights.pooler));
      const norm = tf.rsqrt(tf.maximum(tf.sum(tf.square(projected), -1, true), 1e-12));
      return tf.mul(projected, norm);
    });
  }

  /** Sentence embeddings of each sequence on its own, [batch, hidden] (the graph's output). */
  embed(sequences: readonly (readonly number[])[]): tf.Tensor2D {
    return tf.tidy(() => {
      const { states, mask } = this.tokenStates(sequences);
      const sums = tf.sum(tf.mul(states, tf.expandDims(mask, -1)), 1);
      const counts = tf.maximum(tf.sum(mask, 1, true), 1);
      return this.pool(tf.div(sums, counts) as tf.Tensor2D);
    });
  }

  dispose(): void {
    this.positions.dispose();
  }
}
