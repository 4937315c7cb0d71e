/**
 * The reader's correction of the trained heads' answers: each question's outcome probabilities
 * from the heads (calibrated, as they would be answered) become log-probabilities, the reader
 * adds what it reads in the state to them (`readerForward`), and its own temperatures per type
 * and option-count bucket calibrate the result.
 * @module
 */
import { softmax } from '../answers.js';
import type { ReaderQuestion, ReaderText } from './batch.js';
import { readerLogits, type LoadedReader } from './logits.js';
import { bucketOf } from './weights.js';
import type { ReaderLogitsFn } from './native.js';

/** Probabilities below this are read as this (training reads the heads' answers through `baseOf` too). */
const FLOOR = 1e-6;
const ln = (p: number) => Math.log(Math.min(1 - FLOOR, Math.max(FLOOR, p)));

/** The heads' probabilities as the reader's base: noul [ln p(yes), ln p(no)], else ln p per outcome. */
export function baseOf(type: ReaderQuestion['type'], probabilities: readonly number[]): number[] {
  return type === 'noul' ? [ln(probabilities[0]!), ln(1 - probabilities[0]!)] : probabilities.map(ln);
}

/** A question as the heads answered it. */
export interface AnsweredQuestion extends Omit<ReaderQuestion, 'base'> {
  /** The heads' probabilities: noul [p(yes)], choice and score one per outcome. */
  probabilities: readonly number[];
}

/**
 * State tokens the reader reads at most: the first ones. Training cut states at 512 tokens, so
 * past a few thousand the reader only extrapolates, while its state-side tensors (and the
 * WebAssembly heap, which never shrinks) grow with every token: at 28k tokens they took the
 * heap to about 1 GiB (bench/memory.js). The heads still read the whole state.
 */
export const READER_STATE_TOKENS = 4096;

/** The state as the reader reads it: its first READER_STATE_TOKENS tokens. */
export function readerState(state: ReaderText): ReaderText {
  if (state.n <= READER_STATE_TOKENS) return state;
  const n = READER_STATE_TOKENS;
  return { tokens: state.tokens.subarray(0, n * 512), n, ids: state.ids.slice(0, n) };
}

/** Corrected probabilities per question (noul: [p(yes)]), in input order. */
export function correctAnswers(reader: LoadedReader, state: ReaderText, questions: readonly AnsweredQuestion[]): number[][] {
  return calibrate(reader, questions, readerLogits(reader, readerState(state), readerInputs(questions)));
}

/** `correctAnswers` with the raw logits from `logits` (the reader on another backend, native.ts). */
export async function correctAnswersWith(reader: LoadedReader, logits: ReaderLogitsFn, state: ReaderText, questions: readonly AnsweredQuestion[]): Promise<number[][]> {
  return calibrate(reader, questions, await logits(readerState(state), readerInputs(questions)));
}

function readerInputs(questions: readonly AnsweredQuestion[]): ReaderQuestion[] {
  return questions.map(({ probabilities, ...q }) => ({ ...q, base: baseOf(q.type, probabilities) }));
}

/** The reader's temperatures applied to its raw logits, then softmax. */
function calibrate(reader: LoadedReader, questions: readonly AnsweredQuestion[], logits: readonly number[][]): number[][] {
  return questions.map((q, i) => {
    const t = reader.temperatures[bucketOf(q.type, q.lines.length)] ?? 1;
    const scaled = logits[i]!.map((l) => l / t);
    return q.type === 'noul' ? [softmax(scaled)[0]!] : softmax(scaled);
  });
}
