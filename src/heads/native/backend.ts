/**
 * Which backend serves the trained heads: onnxruntime-node when the encoder runs there (so the
 * package loads and its threads are the engine's to use) and the heads' graphs build and pass
 * a self-test against the tfjs path; otherwise tfjs, as before. The choice and the reason for
 * a fallback are kept for `engine.stats().heads` (onnx/native-part.ts does the choosing).
 * @module
 */
import { HIDDEN, type Params, type TextRep } from '../late.js';
import { requestLogits, type QuestionInput } from '../request-logits.js';
import type { TrainedHeads } from '../trained.js';
import type { OnnxHeads, OnnxHeadsOptions } from './runner.js';
import { checkLogits, NativePart, type PartAttempt } from '../../onnx/native-part.js';

/** Computes raw logits of questions against a state (request-logits.ts' `requestLogits` contract). */
export type HeadsLogitsFn = (state: TextRep, questions: readonly QuestionInput[]) => number[][] | Promise<number[][]>;

/** A text of n tokens with deterministic states and ids from a small vocabulary (so exact matches occur). */
function probeText(n: number, seed: number): TextRep {
  const tokens = Float32Array.from({ length: n * HIDDEN }, (_, i) => Math.sin(seed * 7.1 + i * 0.37) + Math.cos(i * 0.011 * seed) * 0.5);
  const pooled = Float32Array.from({ length: HIDDEN }, (_, i) => Math.sin(seed + i * 0.7));
  const norm = Math.hypot(...pooled);
  return { tokens, n, pooled: n === 0 ? new Float32Array(HIDDEN) : pooled.map((x) => x / norm), ids: Array.from({ length: n }, (_, i) => (seed * 31 + i * 7) % 23) };
}

/** A small fixed batch of every question type, criteria or not, a field pair and an empty text. */
export function probeQuestions(): { state: TextRep; questions: QuestionInput[] } {
  const t = probeText;
  return {
    state: t(29, 1),
    questions: [
      { type: 'noul', instructions: t(6, 2), lines: [t(0, 3), t(0, 4)] },
      { type: 'noul', instructions: t(5, 5), lines: [t(3, 6), t(4, 7)] },
      { type: 'choice', instructions: t(7, 8), lines: [t(2, 9), t(0, 10), t(3, 11)], pair: 0.4 },
      { type: 'score', instructions: t(4, 12), lines: [t(1, 13), t(2, 14), t(3, 15), t(1, 16)] },
    ],
  };
}

/** Throws unless `logits` gives the tfjs heads' logits on the probe batch, within the tolerance. */
export async function headsSelfTest(members: readonly Params[], logits: HeadsLogitsFn): Promise<void> {
  const { state, questions } = probeQuestions();
  checkLogits(requestLogits(members, state, questions), await logits(state, questions), "the tfjs heads'");
}

const native = new NativePart<TrainedHeads, OnnxHeads>('setNativeHeadsEnabled');

/**
 * Turns the native heads off (tfjs everywhere) or back on, for A/B measurements
 * (bench/speed/backends.ts); on by default. Applies to heads opened afterwards.
 */
export function setNativeHeadsEnabled(on: boolean): void {
  native.setEnabled(on);
}

/**
 * Opens the heads on onnxruntime-node when `encoderBackend` is onnxruntime-node, else (or on
 * any failure) reports tfjs with the reason. Same heads object, same answer for the process.
 */
export function headsBackendFor(heads: TrainedHeads, encoderBackend: string, options: OnnxHeadsOptions = {}): PartAttempt<OnnxHeads> {
  return native.attempt(
    heads,
    encoderBackend,
    options.module,
    async () => {
      // Loaded only on this path, by a specifier bundlers do not follow (see reader/native.ts).
      const file = new URL(import.meta.url.endsWith('.ts') ? './runner.ts' : './runner.js', import.meta.url).href;
      const { OnnxHeads } = (await import(file)) as typeof import('./runner.js');
      return OnnxHeads.create(heads.members, options);
    },
    (runner) => headsSelfTest(heads.members, (s, q) => runner.logits(s, q)),
  );
}
