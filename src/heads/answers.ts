/**
 * Builds the typed answers from a question's outcome probabilities. Every invariant of the
 * specification's answer shapes lives here: keys, argmax, weighted mean, legend, confidence.
 * @module
 */
import type { ChoiceAnswer, Content, NoulAnswer, ScoreAnswer } from '../types.js';
import { argmax, choiceConfidence, scoreConfidence } from './confidence.js';

/** Exact-sum softmax in float64 over logits, stable for large magnitudes. */
export function softmax(logits: readonly number[]): number[] {
  const max = Math.max(...logits);
  const exps = logits.map((l) => Math.exp(l - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/** Own-property record from parallel key and value arrays (safe for keys like "__proto__"). */
function record<T>(keys: readonly string[], values: readonly T[]): Record<string, T> {
  const out: Record<string, T> = {};
  keys.forEach((k, i) => Object.defineProperty(out, k, { value: values[i], enumerable: true, writable: true, configurable: true }));
  return out;
}

/** noul: the probability of yes, clamped into [0, 1] against rounding. */
export function noulAnswer(pYes: number): NoulAnswer {
  return { type: 'noul', noul: Math.min(1, Math.max(0, pYes)) };
}

/** choice: probabilities over exactly the options, in option order; `choice` is their argmax. */
export function choiceAnswer(options: readonly string[], probabilities: readonly number[]): ChoiceAnswer {
  return {
    type: 'choice',
    choice: options[argmax(probabilities)]!,
    probabilities: record(options, probabilities),
    confidence: choiceConfidence(probabilities),
  };
}

/** score: the probability-weighted mean level, with legend and probabilities keyed "0".."n-1". */
export function scoreAnswer(levels: readonly Content[], probabilities: readonly number[]): ScoreAnswer {
  const keys = levels.map((_, i) => String(i));
  let score = 0;
  probabilities.forEach((p, i) => (score += i * p));
  return {
    type: 'score',
    score,
    legend: record(keys, levels),
    probabilities: record(keys, probabilities),
    confidence: scoreConfidence(probabilities),
  };
}
