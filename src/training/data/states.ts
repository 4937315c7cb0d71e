/**
 * Building states and cases from rows: several short texts laid out as one state (a paragraph,
 * lines, a bulleted or numbered list, or a JSON array), passages with a length cap, and the
 * grouping of rows that share a state into one case.
 * @module
 */
import type { Question, State } from '../../types.js';
import type { Gold, SplitName } from '../data.js';
import type { DataCase, Placed } from './types.js';
import { pick, type Random } from './util.js';

/** Longest state a public conversion emits, in characters (the encoder reads 128-token windows). */
export const MAX_STATE_CHARS = 1000;

/** Several short texts as one state, in one of five layouts. */
export function listState(items: readonly string[], random: Random): State {
  const layout = pick(['paragraph', 'lines', 'bullets', 'numbered', 'array'] as const, random);
  switch (layout) {
    case 'paragraph':
      return items.join(' ');
    case 'lines':
      return items.join('\n');
    case 'bullets':
      return items.map((s) => `- ${s}`).join('\n');
    case 'numbered':
      return items.map((s, i) => `${i + 1}. ${s}`).join('\n');
    case 'array':
      return [...items];
  }
}

export function stateChars(state: State): number {
  return typeof state === 'string' ? state.length : JSON.stringify(state).length;
}

/** One question of a case under construction. */
export interface Item {
  question: Question;
  gold: Gold;
}

/** A case from a state and its items, with ids q1, q2, ... */
export function makeCase(source: string, id: string, state: State, items: readonly Item[], extra: Partial<DataCase> = {}): DataCase {
  const questions: Record<string, Question> = {};
  const gold: Record<string, Gold> = {};
  items.forEach((it, i) => {
    questions[`q${i + 1}`] = it.question;
    gold[`q${i + 1}`] = it.gold;
  });
  return { id: `${source}/${id}`, source, state, questions, gold, ...extra };
}

/** Groups values by a key, keeping first-seen order. */
export function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const it of items) {
    const k = key(it);
    const list = out.get(k);
    if (list) list.push(it);
    else out.set(k, [it]);
  }
  return out;
}

/** Splits a list into chunks of at most `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function placed(split: SplitName, c: DataCase): Placed {
  return { split, case: c };
}
