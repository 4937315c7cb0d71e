/**
 * The encoder stage of the pipeline: token ids in, encodings out. Long texts are cut into
 * windows of the encoder's 128 tokens, all windows of one call run as one batch, and a text's
 * embedding pools the token states of all its windows together (the graph's mean pooling,
 * extended past one window).
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { loadPassRunner, type BackendReport, type EncoderLoadOptions } from './registry.js';
import type { PassRunner } from './runner.js';
import { TfjsRunner } from './runner.js';
import { collectTensors, ENCODER_SHAPE, type EncoderWeights } from './weights.js';
import { encodeRows, joinRows } from './rows.js';
import { planRows, splitWindows, type RowJob, type RowPlan, type RowSide, type WindowHelper, type WindowResults } from './split.js';
import { passFlops, recordEncoderWork, recordFlops } from './work.js';
import { abortReason, wholeBatchSignal } from './abort.js';
import { Slicer } from './slicer.js';

export { ENCODER_SHAPE } from './weights.js';
export { readEncoderWork, type EncoderWork } from './work.js';
export { abortReason } from './abort.js';
export { TOKENS_PER_SLICE } from './slicer.js';
export type { RowJob, RowSide, WindowHelper, WindowResults } from './split.js';
export type { BackendReport, EncoderLoadOptions } from './registry.js';

/**
 * Counts one pass over `windows`, each encoded on its own (no padding). `native`: the ONNX
 * graph computes layer 0's input projections as products (tfjs reads them from tables) and the
 * last projection per token even when only the sums are wanted.
 */
function record(weights: EncoderWeights, windows: readonly (readonly number[])[], keepStates: boolean, native = false): void {
  const [rows, cols] = weights.layers[weights.layers.length - 1]!.ffnOut.kernel.shape;
  const lastMacs = rows * cols;
  const first = weights.layers[0]!;
  const inputMacs = native ? first.qkv.kernel.shape[0] * first.qkv.kernel.shape[1] + (first.residualProjection ? first.residualProjection.kernel.shape[0] * first.residualProjection.kernel.shape[1] : 0) : 0;
  let flops = 0;
  for (const w of windows) {
    if (w.length === 0) continue;
    flops += passFlops(weights, 1, w.length, 0) + 2 * w.length * inputMacs;
    // Without token states the last projection runs once per window, not once per token.
    if (!keepStates && !native) flops -= 2 * (w.length - 1) * lastMacs;
  }
  const tokens = windows.reduce((n, w) => n + w.length, 0);
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

/** Like concatFloat32, but never a view into a larger buffer (cached encodings must not pin one). */
function ownedConcat(parts: readonly Float32Array[]): Float32Array {
  const one = parts.length === 1 ? parts[0]! : null;
  if (one && one.byteOffset === 0 && one.byteLength === one.buffer.byteLength) return one;
  return concatFloat32(parts.length === 1 ? [parts[0]!.slice()] : parts);
}

/** The state's encoding, kept in the cache and shared by every question about that state. */
export interface StateEncoding {
  /** Tokens of the state (all windows). */
  tokenCount: number;
  /** Number of 128-token windows it was encoded in. */
  windows: number;
  /** Sentence embedding of the whole state, unit length, 512-d. */
  pooled: Float32Array;
  /**
   * Final per-token hidden states, [tokenCount, 512] row-major; empty when `encodeState` was
   * called with `tokenStates: false`.
   */
  tokenStates: Float32Array;
}

/** Options of `encodeState`. */
export interface EncodeStateOptions {
  /**
   * Compute the final per-token states (default true). Heads that read the pooled embedding
   * only may pass false: `tokenStates` is then empty, and the pass skips the last projection
   * per token (about a sixth of the work).
   */
  tokenStates?: boolean;
  /**
   * Stops the pass at the next window boundary (every TOKENS_PER_SLICE tokens) once aborted;
   * the promise then rejects with the signal's reason. Other states of the same pass go on.
   */
  signal?: AbortSignal;
}

interface PendingState {
  ids: readonly number[];
  windows: number[][];
  keepStates: boolean;
  signal: AbortSignal | undefined;
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

/**
 * A loaded encoder on the first backend of the registry (backend.ts) that starts and passes its
 * self-test: onnxruntime-node, else the process' tfjs backend.
 */
export class Encoder {
  private constructor(
    private readonly runner: PassRunner,
    private readonly weightTensors: tf.Tensor[],
    readonly backend: BackendReport,
    private readonly weights: EncoderWeights,
  ) {
    this.tfjs = runner instanceof TfjsRunner ? runner : null;
  }

  /** The tfjs runner when it runs the passes: only it can take part in a row split (rows.ts). */
  private readonly tfjs: TfjsRunner | null;

  static async load(options: EncoderLoadOptions = {}): Promise<Encoder> {
    const { runner, report, weights } = await loadPassRunner(options);
    const tensors = collectTensors(weights);
    // The native encoder holds its own copy; only the shapes are read after this (work counts).
    if (!(runner instanceof TfjsRunner)) tf.dispose(tensors);
    return new Encoder(runner, tensors, report, weights);
  }

  /**
   * Encodes one state (or any text whose token states are wanted): every 128-token window is
   * encoded on its own (no overlap), and the embedding pools the token states of all windows.
   * Calls made in the same tick share one transformer pass (the late-interaction heads encode
   * each question text this way); results are bit-for-bit the same as alone.
   */
  encodeState(ids: readonly number[], options: EncodeStateOptions = {}): Promise<StateEncoding> {
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) return reject(abortReason(options.signal));
      this.pending.push({ ids, windows: toWindows(ids), keepStates: options.tokenStates ?? true, signal: options.signal, resolve, reject });
      if (this.pending.length === 1) queueMicrotask(() => void this.flush());
    });
  }

  private readonly pending: PendingState[] = [];

  /**
   * Another engine's encoder that may take windows of a pass when it is idle (engine pools
   * set it; see split.ts). Results are the same whichever thread encodes a window.
   */
  helper: WindowHelper | null = null;

  /** Encodes every queued state, yielding to the event loop every TOKENS_PER_SLICE tokens. */
  private async flush(): Promise<void> {
    const batch = this.pending.splice(0);
    try {
      const hidden = ENCODER_SHAPE.hiddenDim;
      const windows = batch.flatMap((p) => p.windows);
      // Per window (in batch order): its sums row and its token states.
      const sums: Float32Array[] = new Array<Float32Array>(windows.length);
      const states: (Float32Array | null)[] = new Array<Float32Array | null>(windows.length).fill(null);
      const store = (indices: readonly number[], result: WindowResults) => {
        let row = 0;
        indices.forEach((g, r) => {
          sums[g] = result.sums.subarray(r * hidden, (r + 1) * hidden);
          const n = windows[g]!.length;
          if (result.states) states[g] = result.states.subarray(row * hidden, (row + n) * hidden);
          row += n;
        });
      };
      // Windows for an idle helper, started before ours; only a pass of one keepStates kind is
      // split, so batch[0]'s kind is every window's.
      const sameKind = batch.every((p) => p.keepStates === batch[0]!.keepStates);
      const idle = this.helper !== null && sameKind && this.helper.available();
      // Rows of the windows on both threads when that finishes earlier (token states only:
      // a pooled-only pass would have to swap the last FFN's activations too).
      const rowPlan = idle && this.tfjs && batch[0]!.keepStates && this.helper!.rows ? planRows(windows.map((w) => w.length)) : null;
      const plan = idle && !rowPlan ? splitWindows(windows.map((w) => w.length)) : null;
      const sent = plan ? windows.flatMap((_, g) => (plan[g] ? [g] : [])) : [];
      const whole = wholeBatchSignal(batch.map((p) => p.signal));
      const away = plan ? this.helper!.encode(sent.map((g) => windows[g]!), batch[0]!.keepStates, whole).catch(() => null) : null;
      const slicer = new Slicer();
      let first = 0;
      if (rowPlan) await this.splitRows(rowPlan, windows, store);
      else for (const p of batch) {
        const here = p.windows.map((_, j) => first + j).filter((g) => !plan?.[g]);
        await this.encodeHere(slicer, here, windows, p.keepStates, store, p.signal);
        first += p.windows.length;
      }
      if (away && !whole?.aborted) {
        const result = await away;
        // A helper that failed (its thread ended) leaves its windows to us.
        if (result) store(sent, result);
        else await this.encodeHere(new Slicer(), sent, windows, batch[0]!.keepStates, store, whole);
      }
      // An aborted state's windows may be missing: it is rejected, the others are pooled.
      let g = 0;
      const starts = batch.map((p) => ((g += p.windows.length), g - p.windows.length));
      const live = batch.flatMap((p, i) => (p.signal?.aborted ? (p.reject(abortReason(p.signal)), []) : [i]));
      if (live.length === 0) return;
      const windowsOf = <T>(values: T[], i: number) => values.slice(starts[i]!, starts[i]! + batch[i]!.windows.length);
      const tokenStates = live.map((i) => {
        const rows = windowsOf(states, i).filter((x): x is Float32Array => x !== null);
        return batch[i]!.keepStates ? ownedConcat(rows) : new Float32Array(0);
      });
      const pooled = await this.poolTexts(concatFloat32(live.flatMap((i) => windowsOf(sums, i))), live.map((i) => batch[i]!.windows.map((w) => w.length)));
      live.map((i) => batch[i]!).forEach((p, i) => {
        const own = tokenStates[i]!;
        if (p.keepStates && own.length !== p.ids.length * hidden) throw new Error('encoder: token states out of step');
        p.resolve({ tokenCount: p.ids.length, windows: p.windows.length, pooled: pooled[i]!, tokenStates: own });
      });
    } catch (error) {
      for (const p of batch) p.reject(error);
    }
  }

  /**
   * Encodes every window of a pass (token states kept) with the helper as rows.ts describes:
   * the cut windows on both threads, the others here while the helper finishes. If the helper
   * does not take part, the cut windows are encoded here as usual; results are the same.
   */
  private async splitRows(plan: RowPlan, windows: readonly number[][], store: (indices: readonly number[], result: WindowResults) => void): Promise<void> {
    const hidden = ENCODER_SHAPE.hiddenDim;
    const job: RowJob = { windows: plan.windows.map((g) => windows[g]!), cuts: plan.cuts };
    const rest = windows.flatMap((_, g) => (plan.windows.includes(g) ? [] : [g]));
    let restDone = rest.length === 0;
    const encodeRest = () => {
      if (restDone) return;
      restDone = true;
      const run = rest.map((g) => windows[g]!);
      record(this.weights, run, true);
      // Synchronous: it may run inside the row job's lockstep with the helper.
      store(rest, this.tfjs!.run(run, true));
    };
    const mine = encodeRows(this.tfjs!.transformer, job.windows, job.cuts, 0);
    let joined: { mine: Float32Array[]; theirs: Float32Array[] } | null = null;
    try {
      joined = this.helper?.rows?.(job, mine, encodeRest) ?? null;
    } catch {
      joined = null;
    } finally {
      mine.return([]); // frees its tensors if the job stopped midway
    }
    encodeRest();
    const sized = (rows: Float32Array[] | undefined, side: 0 | 1) =>
      rows?.length === job.windows.length && rows.every((r, i) => r.length === (side === 0 ? job.cuts[i]! : job.windows[i]!.length - job.cuts[i]!) * hidden);
    if (!joined || !sized(joined.mine, 0) || !sized(joined.theirs, 1)) {
      await this.encodeHere(new Slicer(), plan.windows, windows, true, store);
      return;
    }
    record(this.weights, job.windows, true);
    job.windows.forEach((w, i) => store([plan.windows[i]!], joinRows(joined.mine[i]!, joined.theirs[i]!, w.length)));
  }

  /** Side `side` of another encoder's row job (the helper side of the row split). */
  rowSide(job: RowJob, side: 0 | 1): RowSide {
    if (!this.tfjs) throw new Error(`encoder: the ${this.runner.backend} backend takes no row jobs`);
    return encodeRows(this.tfjs.transformer, job.windows, job.cuts, side);
  }

  /** Encodes the windows `indices` of `windows` on this thread, in slices, and stores each result. */
  private async encodeHere(
    slicer: Slicer,
    indices: readonly number[],
    windows: readonly number[][],
    keepStates: boolean,
    store: (indices: readonly number[], result: WindowResults) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    let done = 0;
    await slicer.each(
      indices.map((g) => windows[g]!),
      async (run) => {
        record(this.weights, run, keepStates, this.tfjs === null);
        const slice = indices.slice(done, done + run.length);
        done += run.length;
        store(slice, await this.runner.run(run, keepStates));
      },
      signal,
    );
  }

  /**
   * Encodes windows for another engine's encoder (the helper side of split.ts): each window
   * on its own, sums and token states in input order.
   */
  async encodeWindows(windows: readonly (readonly number[])[], keepStates: boolean, signal?: AbortSignal): Promise<WindowResults> {
    const sums: Float32Array[] = [];
    const states: Float32Array[] = [];
    await new Slicer().each(
      windows.map((w) => [...w]),
      async (run) => {
        record(this.weights, run, keepStates, this.tfjs === null);
        const pass = await this.runner.run(run, keepStates);
        sums.push(pass.sums);
        if (pass.states) states.push(pass.states);
      },
      signal,
    );
    if (signal?.aborted) throw abortReason(signal);
    return { sums: concatFloat32(sums), states: keepStates ? concatFloat32(states) : null };
  }

  /**
   * Sentence embeddings of several texts. A text longer than the window is pooled over all
   * its windows. Each text's embedding is bit-for-bit the same whatever other texts share the
   * call: every sequence is encoded on its own, and sums are taken per sequence.
   */
  async embedTexts(texts: readonly (readonly number[])[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const windows: number[][] = [];
    const lengths: number[][] = texts.map(() => []);
    texts.forEach((ids, i) => {
      for (const w of toWindows(ids)) {
        windows.push(w);
        lengths[i]!.push(w.length);
      }
    });
    const sums: Float32Array[] = [];
    await new Slicer().each(windows, async (run) => {
      record(this.weights, run, false, this.tfjs === null);
      sums.push((await this.runner.run(run, false)).sums);
    }, signal);
    if (signal?.aborted) throw abortReason(signal);
    return this.poolTexts(concatFloat32(sums), lengths);
  }

  /**
   * Pools texts from their windows' token-state sums (`sums`: consecutive [512] rows, the
   * windows of text 0 first): adds each text's window sums in window order in float64,
   * divides by its token count, then applies the tanh projection and normalisation.
   */
  private async poolTexts(sums: Float32Array, windowLengths: readonly (readonly number[])[]): Promise<Float32Array[]> {
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
    recordFlops(passFlops(this.weights, 0, 0, windowLengths.length));
    const flat = await this.runner.pool(means, windowLengths.length);
    return windowLengths.map((_, i) => flat.slice(i * hidden, (i + 1) * hidden));
  }

  /** Frees the weights. */
  dispose(): void {
    this.runner.dispose();
    tf.dispose(this.weightTensors);
  }
}
