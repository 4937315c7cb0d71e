/**
 * Shortcut cues a model could learn instead of the task, measured on the mixed set: for noul
 * questions, whether the question has names or numbers, or content words, absent from the
 * state, and how much of it the state's words cover; for choice questions, whether the gold is
 * the only option whose name occurs in the state. The report shows the yes rate (or the gold
 * rate) on each side of each cue: far from the overall rate means a cue predicts the gold.
 * @module
 */
import type { Question } from '../../types.js';
import { normalizeText } from './util.js';

/** Function words and the wording of the conversions' own templates (not content). */
const SKIP = new Set(
  ('a an the is are was were be been being of in on at to for with by from and or but not no it its this that these those ' +
    'there their they he she his her him them some has have had do does did as can could will would should may might must ' +
    'what which who whom when where why how than then so if into over under about any all each more most less also only ' +
    'yes true false answer text passage state content written record data table entry information say says said according ' +
    'conclude verify statement support supported claim follows follow backed confirmed confirm check whether established case ' +
    'question based given using indicates read going message value equal equals one following please').split(' '),
);

function words(text: string): string[] {
  return normalizeText(text).split(' ').filter((w) => w !== '');
}

/** Text of a state for word lookups (JSON states: keys and values). */
export function stateText(state: unknown): string {
  return typeof state === 'string' ? state : JSON.stringify(state);
}

/** Content words of the question text (instructions and noul criteria). */
export function contentWords(q: Question): string[] {
  const text = typeof q.instructions === 'string' ? q.instructions : JSON.stringify(q.instructions ?? '');
  return words(text).filter((w) => w.length > 2 && !SKIP.has(w));
}

/** Names (capitalised words not opening a sentence) and numbers of a question's instructions. */
export function namesAndNumbers(q: Question): string[] {
  const text = typeof q.instructions === 'string' ? q.instructions : '';
  const out: string[] = [];
  const re = /(^|[.?!:"]\s*|\s)([A-Z][a-z]+|\d[\d,.]*)/g;
  for (const m of text.matchAll(re)) {
    const token = m[2]!;
    const opensSentence = m.index === 0 || /[.?!:"]\s*$/.test(m[1]!);
    if (/^\d/.test(token) || !opensSentence) out.push(normalizeText(token));
  }
  return out.filter((t) => t !== '' && !SKIP.has(t));
}

export interface NoulCues {
  /** A name or number of the question is absent from the state. */
  absentName: boolean;
  /** A content word of the question is absent from the state. */
  absentWord: boolean;
  /** Share of the question's content words found in the state (1 when it has none). */
  overlap: number;
}

export function noulCues(q: Question, stateWords: ReadonlySet<string>, stateNorm: string): NoulCues {
  const cw = contentWords(q);
  const found = cw.filter((w) => stateWords.has(w)).length;
  const names = namesAndNumbers(q);
  return {
    absentName: names.some((n) => !stateNorm.includes(n)),
    absentWord: found < cw.length,
    overlap: cw.length === 0 ? 1 : found / cw.length,
  };
}

/** Options of a choice question whose name (normalised, as whole words) occurs in the state. */
export function optionsInState(q: Question, stateNorm: string): string[] {
  if (q.type !== 'choice') return [];
  const padded = ` ${stateNorm} `;
  return Object.keys(q.criteria).filter((name) => {
    const n = normalizeText(name);
    return n !== '' && padded.includes(` ${n} `);
  });
}

export function stateWordSet(state: unknown): { words: Set<string>; norm: string } {
  const norm = normalizeText(stateText(state));
  return { words: new Set(norm.split(' ')), norm };
}
