/**
 * Deterministic inputs of the speed benchmark: states of a given token length, questions of
 * each type, and the jevbench-sample cases. Every generator takes a seed, so a "fresh" input
 * (one no cache has seen) is simply a new seed, and two runs of the benchmark see the same text.
 * @module
 */
import { readFileSync } from 'node:fs';
import type { Questions, State } from '../../src/index.js';
import { rng } from '../../src/training/data.js';

export { rng };

const WORDS = (
  'the a customer order parcel arrived late broken refund invoice payment account team support ' +
  'engineer report incident server outage error login password user seats plan billing shipping ' +
  'warehouse delivery contract clause renewal notice deadline week month yesterday today tomorrow ' +
  'manager review approval request ticket issue problem feature export import data backup system ' +
  'network firewall alert malware phishing email attachment link suspicious transfer bank detail ' +
  'change expense claim receipt hotel flight travel policy limit amount total dollars euros ' +
  'patient appointment doctor clinic insurance denied records copy student essay grade rubric ' +
  'argument evidence source citation candidate interview offer salary counter transfer role ' +
  'agent tool call step failed retried succeeded output log trace memory latency timeout queue ' +
  'and or but with without for from into over under after before because although while when ' +
  'is was were has had will would should could must may might not never always often rarely ' +
  'quickly slowly clearly again still only also very quite really extremely fully partly ' +
  'we they she he it our their this that these those every some many few several two three'
).split(' ');

/** Roughly `words` words of sentence-like text from `seed`. */
export function prose(words: number, seed: number): string {
  const next = rng(seed);
  const out: string[] = [];
  let sentence = 0;
  for (let i = 0; i < words; i++) {
    let w = WORDS[Math.floor(next() * WORDS.length)]!;
    if (sentence === 0) w = w[0]!.toUpperCase() + w.slice(1);
    sentence++;
    if (sentence > 8 && next() < 0.2) {
      w += '.';
      sentence = 0;
    }
    out.push(w);
  }
  return out.join(' ') + '.';
}

/**
 * A state text of at most `tokens` tokens as `count` measures them (within about 1% below),
 * so that a state of 256 tokens is exactly two 128-token windows, not two and a bit. Words
 * are scaled by the measured tokens-per-word ratio, then trimmed.
 */
export function stateOfTokens(tokens: number, seed: number, count: (text: string) => number): string {
  let words = Math.max(1, Math.round(tokens * 0.75));
  let text = prose(words, seed);
  for (let i = 0; i < 3; i++) {
    const got = count(text);
    if (got <= tokens && got >= tokens - Math.max(1, tokens * 0.01)) return text;
    words = Math.max(1, Math.round((words * tokens) / got));
    text = prose(words, seed);
  }
  while (words > 1 && count(text) > tokens) text = prose(--words, seed);
  return text;
}

/** `n` distinct yes/no questions; the seed picks their wording. */
export function noulQuestions(n: number, seed: number): Questions {
  const next = rng(seed * 7919 + 13);
  const pick = () => WORDS[Math.floor(next() * WORDS.length)]!;
  const out: Questions = {};
  for (let i = 0; i < n; i++) {
    out[`q${i}`] = { type: 'noul', instructions: `Does the text say that the ${pick()} ${pick()} was ${pick()}?` };
  }
  return out;
}

/** One choice question with `options` options, each with a short description. */
export function choiceQuestion(options: number, seed: number): Questions {
  const next = rng(seed * 104729 + 7);
  const pick = () => WORDS[Math.floor(next() * WORDS.length)]!;
  const criteria: Record<string, string> = {};
  for (let i = 0; i < options; i++) criteria[`${pick()}_${i}`] = `About the ${pick()} ${pick()} and its ${pick()}`;
  return { c: { type: 'choice', instructions: `Which ${pick()} does the ${pick()} concern?`, criteria } };
}

/** One score question with `levels` levels. */
export function scoreQuestion(levels: number, seed: number): Questions {
  const next = rng(seed * 15485863 + 3);
  const pick = () => WORDS[Math.floor(next() * WORDS.length)]!;
  const criteria = Array.from({ length: levels }, (_, i) => `${i === 0 ? 'No' : 'Some'} ${pick()} ${pick()}`);
  return { s: { type: 'score', instructions: `How ${pick()} is the ${pick()}?`, criteria } };
}

/** A jevbench-sample case: state and questions as the cases file holds them. */
export interface BenchCase {
  id: string;
  state: State;
  questions: Questions;
}

export const JEVBENCH_SAMPLE = '/work/shared/data/jevbench-sample/cases.jsonl';

/** The cases of the jevbench sample, or none when the file is absent. */
export function loadCases(file = process.env.EVALMODEL_JEVBENCH ?? JEVBENCH_SAMPLE): BenchCase[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const c = JSON.parse(l) as BenchCase;
      return { id: c.id, state: c.state, questions: c.questions };
    });
}

/** The state with a marker line that makes it new to every cache (same length each time). */
export function withNonce(state: State, nonce: number): State {
  const tag = `Ref ${nonce.toString(36)}.`;
  if (typeof state === 'string') return `${tag} ${state}`;
  if (Array.isArray(state)) return [tag, ...state];
  return { ref: tag, ...state };
}

/** The questions with a marker in every instruction, so that no outcome text is cached. */
export function questionsWithNonce(questions: Questions, nonce: number): Questions {
  const out: Questions = {};
  for (const [id, q] of Object.entries(questions)) {
    const text = typeof q.instructions === 'string' ? q.instructions : JSON.stringify(q.instructions ?? '');
    out[id] = { ...q, instructions: `(${nonce.toString(36)}) ${text}` } as Questions[string];
  }
  return out;
}
