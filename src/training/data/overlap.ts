/**
 * The overlap check against the measure-only sets (`jevbench-sample/`, `external/`): every
 * string in their cases (states, instructions, option names and descriptions) is cut into
 * sentences, and each sentence of at least {@link MIN_UNIT_CHARS} normalised characters, plus
 * each whole string, is a key. A converted case overlaps when any of its own strings, or any
 * sentence of them, normalises to a key. Overlapping cases are dropped from the training data
 * and counted in the report, so the figure written out is always zero.
 * @module
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { DataCase } from './types.js';
import { normalizeText, readJsonlRows, sentences } from './util.js';

/** Shorter units ("yes", "Sports", "What is the topic?") are shared by chance, not by copying. */
export const MIN_UNIT_CHARS = 25;

/** Every string inside a JSON value (keys of objects included). */
export function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      strings(v, out);
    }
  return out;
}

/** Normalised units of a text: the whole text and each sentence, when long enough. */
export function units(text: string): string[] {
  const out = new Set<string>();
  for (const t of [text, ...sentences(text), ...text.split('\n')]) {
    const n = normalizeText(t);
    if (n.length >= MIN_UNIT_CHARS) out.add(n);
  }
  return [...out];
}

/** Units of what a case's model input contains: its state and its questions. */
export function caseUnits(c: Pick<DataCase, 'state' | 'questions'>): string[] {
  return strings([c.state, c.questions]).flatMap(units);
}

/** The keys of the measure-only sets found under the shared data folder (empty when absent). */
export function measureOnlyKeys(dataDir: string): { keys: Set<string>; files: string[] } {
  const keys = new Set<string>();
  const files: string[] = [];
  for (const sub of ['jevbench-sample', 'external']) {
    const dir = path.join(dataDir, sub);
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl') && x !== 'gold.jsonl').sort()) {
      files.push(`${sub}/${f}`);
      for (const row of readJsonlRows(path.join(dir, f))) for (const u of caseUnits({ state: row.state as never, questions: row.questions as never })) keys.add(u);
    }
  }
  return { keys, files };
}

/** The first unit of a case found among the keys, or null. */
export function overlapOf(c: Pick<DataCase, 'state' | 'questions'>, keys: ReadonlySet<string>): string | null {
  for (const u of caseUnits(c)) if (keys.has(u)) return u;
  return null;
}
