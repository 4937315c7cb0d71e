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
import { collectTensors, ENCODER_SHAPE, loadEncoderWeights, type EncoderWeights } from './weights.js';
import { denseMacsPerToken, passFlops, recordEncoderWork } from './work.js';
import type { BackendName } from '../engine/contract.js';

export { ENCODER_SHAPE } from './weights.js';
export { readEncoderWork, type EncoderWork } from './work.js';

/** Counts one pass: ragged rows (no padding), per-sequence attention, `pooled` projections. */
function record(weights: EncoderWeights, windows: readonly (readonly number[])[], pooled: number, keepStates: boolean): void {
  const tokens = windows.reduce((n, w) => n + w.length, 0);
  const last = weights.layers[weights.layers.length - 1]!.ffnOut.kernel.shape;
  // Without token states the last projection runs once per window, not once per token.
  const skipped = keepStates ? 0 : last[0] * last[1];
  let flops = passFlops(weights, 0, 0, pooled) + 2 * tokens * (denseMacsPerToken(weights) - skipped);
  for (const w of windows) {
    flops += passFlops(weights, 1, w.length, 0) - 2 * w.length * denseMacsPerToken(weights);
    if (!keepStates) flops += 2 * last[0] * last[1];
  }
  recordEncoderWork({ sequences: windows.length, tokens, paddedTokens: tokens, flops });
}

function concatFloat32(parts: readonly Float32Array[]): Float32Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Reads a tensor's values and frees it. */
function readAndDispose(t: tf.Tensor): Float32Array {
  const values = t.dataSync() as Float32Array;
  t.dispose();
  return values;
}

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

/** Windows per transformer pass of `encodeState`; longer states yield to the event loop between passes. */
export const WINDOWS_PER_PASS = 8;

interface PendingState {
  ids: readonly number[];
  windows: number[][];
  resolve(e: StateEncoding): void;
  reject(e: unknown): void;
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
    private readonly weights: EncoderWeights,
  ) {}

  static async load(options: { backend?: BackendName } = {}): Promise<Encoder> {
    const backend = await initBackend(options.backend);
    const weights = await loadEncoderWeights();
    return new Encoder(new TransformerEncoder(weights), collectTensors(weights), backend, weights);
  }

  /**
   * Encodes one state (or any text whose token states are wanted): every 128-token window is
   * encoded on its own (no overlap), and the embedding pools the token states of all windows.
   * Calls made in the same tick share one transformer pass (the late-interaction heads encode
   * each question text this way); results are bit-for-bit the same as alone.
   */
  encodeState(ids: readonly number[]): Promise<StateEncoding> {
    return new Promise((resolve, reject) => {
      this.pending.push({ ids, windows: toWindows(ids), resolve, reject });
      if (this.pending.length === 1) queueMicrotask(() => void this.flush());
    });
  }

  private readonly pending: PendingState[] = [];

  /** Encodes every queued state: in passes of at most WINDOWS_PER_PASS windows. */
  private async flush(): Promise<void> {
    const batch = this.pending.splice(0);
    try {
      const windows = batch.flatMap((p) => p.windows);
      const sums: Float32Array[] = [];
      const states: Float32Array[] = [];
      for (let start = 0; start < windows.length; start += WINDOWS_PER_PASS) {
        if (start > 0) await new Promise((r) => setImmediate(r));
        const chunk = windows.slice(start, start + WINDOWS_PER_PASS);
        record(this.weights, chunk, start === 0 ? batch.length : 0, true);
        const pass = this.transformer.sequenceSums(chunk, { keepStates: true });
        sums.push(readAndDispose(pass.sums));
        states.push(readAndDispose(pass.states!));
      }
      const hidden = ENCODER_SHAPE.hiddenDim;
      const allSums = concatFloat32(sums);
      const allStates = concatFloat32(states);
      const pooled = this.poolTexts(allSums, batch.map((p) => p.windows.map((w) => w.length)));
      let row = 0;
      batch.forEach((p, i) => {
        const tokenStates = allStates.slice(row * hidden, (row + p.ids.length) * hidden);
        row += p.ids.length;
        p.resolve({ tokenCount: p.ids.length, windows: p.windows.length, pooled: pooled[i]!, tokenStates });
      });
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }

  /**
   * Sentence embeddings of several texts, one pass. A text longer than the window is pooled
   * over all its windows. Each text's embedding is bit-for-bit the same whatever other texts
   * share the pass (rows never mix across sequences, sums are taken per sequence).
   */
  async embedTexts(texts: readonly (readonly number[])[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const windows: number[][] = [];
    const lengths: number[][] = texts.map(() => []);
    texts.forEach((ids, i) => {
      for (const w of toWindows(ids)) {
        windows.push(w);
        lengths[i]!.push(w.length);
      }
    });
    record(this.weights, windows, texts.length, false);
    const { sums } = this.transformer.sequenceSums(windows);
    return this.poolTexts(readAndDispose(sums), lengths);
  }

  /**
   * Pools texts from their windows' token-state sums (`sums`: consecutive [512] rows, the
   * windows of text 0 first): adds each text's window sums in window order in float64,
   * divides by its token count, then applies the tanh projection and normalisation.
   */
  private poolTexts(sums: Float32Array, windowLengths: readonly (readonly number[])[]): Float32Array[] {
    const hidden = ENCODER_SHAPE.hiddenDim;
    const means = new Float32Array(windowLengths.length * hidden);
    const acc = new Float64Array(hidden);
    let row = 0;
    windowLengths.forEach((lengths, t) => {
      acc.fill(0);
      let count = 0;
      for (const length of lengths) {
        const base = row * hidden;
        for (let j = 0; j < hidden; j++) acc[j]! += sums[base + j]!;
        count += length;
        row++;
      }
      const scale = 1 / Math.max(1, count);
      for (let j = 0; j < hidden; j++) means[t * hidden + j] = acc[j]! * scale;
    });
    const pooled = tf.tidy(() => this.transformer.pool(tf.tensor2d(means, [windowLengths.length, hidden])));
    const flat = readAndDispose(pooled);
    return windowLengths.map((_, i) => flat.slice(i * hidden, (i + 1) * hidden));
  }

  /** Frees the weights. */
  dispose(): void {
    this.transformer.dispose();
    tf.dispose(this.weightTensors);
  }
}
