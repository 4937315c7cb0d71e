/**
 * The encoder stage of the pipeline: token ids in, encodings out. Long texts are cut into
 * windows of the encoder's 128 tokens, all windows of one call run as one batch, and a text's
 * embedding pools the token states of all its windows together (the graph's mean pooling,
 * extended past one window).
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { initBackend, type BackendReport } from './backend.js';
import { TransformerEncoder } from './transformer.js';
import { collectTensors, ENCODER_SHAPE, loadEncoderWeights } from './weights.js';
import type { BackendName } from '../engine/contract.js';

export { ENCODER_SHAPE } from './weights.js';

/** The state's encoding, kept in the cache and shared by every question about that state. */
export interface StateEncoding {
  /** Tokens of the state (all windows). */
  tokenCount: number;
  /** Number of 128-token windows it was encoded in. */
  windows: number;
  /** Sentence embedding of the whole state, unit length, 512-d. */
  pooled: Float32Array;
  /** Final per-token hidden states, [tokenCount, 512] row-major. */
  tokenStates: Float32Array;
}

/** Splits ids into consecutive windows of at most `size` tokens (at least one, maybe empty). */
export function toWindows(ids: readonly number[], size: number = ENCODER_SHAPE.maxTokens): number[][] {
  if (ids.length === 0) return [[]];
  const windows: number[][] = [];
  for (let start = 0; start < ids.length; start += size) windows.push(ids.slice(start, start + size));
  return windows;
}

/** Approximate bytes an encoding occupies in memory (typed arrays dominate). */
export function encodingBytes(e: StateEncoding): number {
  return e.pooled.byteLength + e.tokenStates.byteLength + 64;
}

/** A loaded encoder on the process' tfjs backend. */
export class Encoder {
  private constructor(
    private readonly transformer: TransformerEncoder,
    private readonly weightTensors: tf.Tensor[],
    readonly backend: BackendReport,
  ) {}

  static async load(options: { backend?: BackendName } = {}): Promise<Encoder> {
    const backend = await initBackend(options.backend);
    const weights = await loadEncoderWeights();
    return new Encoder(new TransformerEncoder(weights), collectTensors(weights), backend);
  }

  /** Encodes one state in one batched pass over its windows. */
  async encodeState(ids: readonly number[]): Promise<StateEncoding> {
    const windows = toWindows(ids);
    const [pooledT, statesT] = tf.tidy(() => {
      const { states, mask } = this.transformer.tokenStates(windows);
      const hidden = states.shape[2];
      // Real tokens only, in order: windows are full except the last, so a prefix per row.
      const rows = windows.map((w, i) => tf.reshape(tf.slice(states, [i, 0, 0], [1, Math.max(w.length, 1), hidden]), [-1, hidden]));
      const flat = tf.concat(rows, 0) as tf.Tensor2D;
      const count = Math.max(1, ids.length);
      const mean = tf.div(tf.sum(tf.mul(states, tf.expandDims(mask, -1)), [0, 1]), count);
      const pooled = this.transformer.pool(tf.reshape(mean, [1, hidden]) as tf.Tensor2D);
      return [pooled, ids.length === 0 ? tf.zeros([0, hidden]) : tf.slice(flat, [0, 0], [ids.length, hidden])];
    });
    const [pooled, tokenStates] = await Promise.all([pooledT.data(), statesT.data()]);
    tf.dispose([pooledT, statesT]);
    return {
      tokenCount: ids.length,
      windows: windows.length,
      pooled: pooled as Float32Array,
      tokenStates: tokenStates as Float32Array,
    };
  }

  /**
   * Sentence embeddings of several texts, one batched pass. A text longer than the window is
   * pooled over all its windows.
   */
  async embedTexts(texts: readonly (readonly number[])[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const windows: number[][] = [];
    const owner: number[] = [];
    texts.forEach((ids, i) => {
      for (const w of toWindows(ids)) {
        windows.push(w);
        owner.push(i);
      }
    });
    const pooledT = tf.tidy(() => {
      const { states, mask } = this.transformer.tokenStates(windows);
      // Sum each window's real tokens, then add up the windows of each text with a 0/1
      // assignment matrix (the wasm backend has no UnsortedSegmentSum kernel).
      const sums = tf.sum(tf.mul(states, tf.expandDims(mask, -1)), 1);
      const counts = tf.sum(mask, 1, true);
      const assign = new Float32Array(texts.length * windows.length);
      owner.forEach((text, w) => (assign[text * windows.length + w] = 1));
      const assignment = tf.tensor2d(assign, [texts.length, windows.length]);
      const textSums = tf.matMul(assignment, sums);
      const textCounts = tf.maximum(tf.matMul(assignment, counts), 1);
      return this.transformer.pool(tf.div(textSums, textCounts) as tf.Tensor2D);
    });
    const flat = (await pooledT.data()) as Float32Array;
    pooledT.dispose();
    const dim = flat.length / texts.length;
    return texts.map((_, i) => flat.slice(i * dim, (i + 1) * dim));
  }

  /** Frees the weights. */
  dispose(): void {
    this.transformer.dispose();
    tf.dispose(this.weightTensors);
  }
}
