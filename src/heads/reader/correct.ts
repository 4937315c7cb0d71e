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

/** Probabilities below this are read as this (the same floor training used). */
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

/** Corrected probabilities per question (noul: [p(yes)]), in input order. */
export function correctAnswers(reader: LoadedReader, state: ReaderText, questions: readonly AnsweredQuestion[]): number[][] {
  const inputs: ReaderQuestion[] = questions.map(({ probabilities, ...q }) => ({ ...q, base: baseOf(q.type, probabilities) }));
  const logits = readerLogits(reader, state, inputs);
  return questions.map((q, i) => {
    const t = reader.temperatures[bucketOf(q.type, q.lines.length)] ?? 1;
    const scaled = logits[i]!.map((l) => l / t);
    return q.type === 'noul' ? [softmax(scaled)[0]!] : softmax(scaled);
  });
}
