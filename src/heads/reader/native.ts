/**
 * Which backend serves the reader: onnxruntime-node when the encoder runs there (so the
 * package loads and its threads are the engine's to use) and the reader's graph builds and
 * passes a self-test against the tfjs forward pass; otherwise tfjs, as before. The choice and
 * the reason for a fallback are kept for `engine.stats().reader`, as the encoder's registry
 * keeps its own (encoder/registry.ts).
 * @module
 */
import { INPUT } from './architecture.js';
import type { ReaderQuestion, ReaderText } from './batch.js';
import { readerLogits, type LoadedReader } from './logits.js';
import type { OnnxReader, OnnxReaderOptions } from './onnx-runner.js';
import { checkLogits, NativePart, type PartAttempt } from '../../onnx/native-part.js';

/** Computes raw reader logits of questions against a state (logits.ts' `readerLogits` contract). */
export type ReaderLogitsFn = (state: ReaderText, questions: readonly ReaderQuestion[]) => number[][] | Promise<number[][]>;

/** A text of n tokens with deterministic states and ids from a small vocabulary (so matches occur). */
function probeText(n: number, seed: number): ReaderText {
  const tokens = Float32Array.from({ length: n * INPUT }, (_, i) => Math.sin(seed * 7.1 + i * 0.37) * 2 + Math.cos(i * 0.011 * seed));
  return { tokens, n, ids: Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) % 23) };
}

/** A small fixed batch of every question type, criteria or not, with an empty text. */
export function probeQuestions(): { state: ReaderText; questions: ReaderQuestion[] } {
  const t = probeText;
  return {
    state: t(21, 1),
    questions: [
      { type: 'noul', instructions: t(6, 2), lines: [t(0, 3), t(0, 4)], base: [-0.3, -1.35] },
      { type: 'noul', instructions: t(5, 5), lines: [t(3, 6), t(4, 7)], base: [-2, -0.14] },
      { type: 'choice', instructions: t(7, 8), lines: [t(2, 9), t(0, 10), t(3, 11)], base: [-1, -0.7, -1.8] },
      { type: 'score', instructions: t(4, 12), lines: [t(1, 13), t(2, 14), t(3, 15), t(1, 16)], base: [-1.4, -1.2, -1.5, -1.5] },
      // An odd rubric too: its middle level is its own mirror image in the ordinal term.
      { type: 'score', instructions: t(3, 17), lines: [t(2, 18), t(1, 19), t(2, 20)], base: [-1.1, -1, -1.2] },
    ],
  };
}

/** Throws unless `logits` gives the tfjs reader's logits on the probe batch, within the tolerance. */
export async function readerSelfTest(reader: LoadedReader, logits: ReaderLogitsFn): Promise<void> {
  const { state, questions } = probeQuestions();
  checkLogits(readerLogits(reader, state, questions), await logits(state, questions), "the tfjs reader's");
}

const native = new NativePart<LoadedReader, OnnxReader>('setNativeReaderEnabled');

/**
 * Turns the native reader off (tfjs everywhere) or back on, for A/B measurements
 * (bench/speed/reader.ts); on by default. Applies to readers opened afterwards.
 */
export function setNativeReaderEnabled(on: boolean): void {
  native.setEnabled(on);
}

/**
 * Opens the reader on onnxruntime-node when `encoderBackend` is onnxruntime-node, else (or on
 * any failure) reports tfjs with the reason. Same reader object, same answer for the process.
 */
export function readerBackendFor(reader: LoadedReader, encoderBackend: string, options: OnnxReaderOptions = {}): PartAttempt<OnnxReader> {
  return native.attempt(
    reader,
    encoderBackend,
    options.module,
    async () => {
      // Loaded only on this path, by a specifier bundlers do not follow (see onnx-runner.ts).
      const file = new URL(import.meta.url.endsWith('.ts') ? './onnx-runner.ts' : './onnx-runner.js', import.meta.url).href;
      const { OnnxReader } = (await import(file)) as typeof import('./onnx-runner.js');
      return OnnxReader.create(reader, options);
    },
    (runner) => readerSelfTest(reader, (s, q) => runner.logits(s, q)),
  );
}
