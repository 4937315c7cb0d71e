/**
 * Small shared helpers of the data build: seeded randomness per source (so adding a set never
 * changes another set's output), text clean-up, and the split rule of the public sets.
 * @module
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rng, shuffled, unitHash, type SplitName } from '../data.js';
import type { Row } from './types.js';

/** Seed for a named source, stable across runs and independent of the other sources. */
export function seedOf(name: string, base = 20261127): number {
  return createHash('sha256').update(`${base}\u0000${name}`).digest().readUInt32BE(0);
}

export type Random = () => number;

export function randomFor(name: string): Random {
  return rng(seedOf(name));
}

export function pick<T>(items: readonly T[], random: Random): T {
  if (items.length === 0) throw new Error('pick from an empty list');
  return items[Math.floor(random() * items.length)]!;
}

/** A shuffled copy (Fisher-Yates with the given source). */
export function shuffledBy<T>(items: readonly T[], random: Random): T[] {
  return shuffled(items, random);
}

/** Integer in [lo, hi], both included. */
export function between(lo: number, hi: number, random: Random): number {
  return lo + Math.floor(random() * (hi - lo + 1));
}

/** `n` distinct items drawn without replacement (fewer if the list is shorter). */
export function sample<T>(items: readonly T[], n: number, random: Random): T[] {
  const pool = [...items];
  const out: T[] = [];
  while (out.length < n && pool.length > 0) {
    const i = Math.floor(random() * pool.length);
    out.push(pool[i]!);
    pool[i] = pool[pool.length - 1]!;
    pool.pop();
  }
  return out;
}

/** Reads a JSONL file into objects (blank lines skipped). */
export function readJsonlRows(file: string): Row[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Row);
}

/** Lower case, letters and digits only, single spaces: the key of duplicate and overlap checks. */
export function normalizeText(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Collapses runs of whitespace and the tokenised spacing of some sets (" ." , " 's"). */
export function tidy(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/ ([.,;:!?%)])/g, '$1')
    .replace(/\( /g, '(')
    .replace(/ (n't|'s|'re|'ve|'ll|'d|'m)\b/g, '$1')
    .replace(/``|''/g, '"')
    // MultiNLI's CSV quoting leaves runs of double quotes.
    .replace(/"{2,}/g, '"')
    .trim();
}

/** Sentences of a text (split after . ! ? followed by a space and a capital or digit). */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?]["')\]]?)\s+(?=["'(\[]?[A-Z0-9])/)
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/**
 * The longest prefix of whole sentences that fits `max` characters, or null when even the first
 * sentence does not fit. Used only where a label holds for any excerpt (reading level).
 */
export function trimToSentences(text: string, max: number): string | null {
  if (text.length <= max) return text;
  let out = '';
  for (const s of sentences(text)) {
    const next = out === '' ? s : `${out} ${s}`;
    if (next.length > max) break;
    out = next;
  }
  return out === '' ? null : out;
}

/** Words that may start a sentence in lower case inside another sentence ("that a man ..."). */
const LOWERABLE = new Set(
  ('a an the this that these those there it its he she they we you i\'m his her their our some ' +
    'one two three four five six seven eight nine ten many several few all no none every each ' +
    'people person man men woman women boy boys girl girls child children kids dog dogs cat guys guy ' +
    'lady ladies adults adult player players team crowd workers worker several ' +
    'is are was were do does did can could will would should has have had may might must ' +
    'someone somebody nobody everyone group most more less only both either neither').split(' '),
);

/** Lower-cases the first letter when the first word is a common word (never a name). */
export function lcFirst(text: string): string {
  const first = text.split(/\s/, 1)[0] ?? '';
  if (!LOWERABLE.has(first.toLowerCase()) || first === 'I') return text;
  return text.charAt(0).toLowerCase() + text.slice(1);
}

export function ucFirst(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A statement without its final full stop (for embedding after "that"). */
export function bareStatement(text: string): string {
  return lcFirst(text.trim().replace(/[.!\s]+$/, ''));
}

/** A yes/no question with a capital and a question mark. */
export function asQuestion(text: string): string {
  const t = text.trim().replace(/[.?\s]+$/, '');
  return `${ucFirst(t)}?`;
}

const DEV = new Set(['dev', 'val', 'validate', 'validation']);
const TRAIN = new Set(['train']);

/** Rows kept out of training per held-out split of one public set (the surplus trains). */
export const HELD_OUT_CAP = 1000;

/**
 * The split rule of a public set, built from the own-split names of all its rows:
 * - the set's own train rows train (10% of them calibrate when the set has no dev rows);
 * - its dev rows calibrate and its test rows test when the set also has train rows, up to
 *   {@link HELD_OUT_CAP} rows each (a seeded choice; the rest train);
 * - sets without train rows (only dev/test, or unsplit) are split 80/10/10 by a seeded hash.
 * The hash is of a group key (premise, passage, table, article) so that rows sharing content
 * never straddle splits.
 */
export function publicSplitter(set: string, ownSplits: readonly string[]): (own: string, key: string) => SplitName {
  const counts = new Map<string, number>();
  for (const s of ownSplits) counts.set(s, (counts.get(s) ?? 0) + 1);
  const hasTrain = ownSplits.some((s) => TRAIN.has(s));
  const hasDev = ownSplits.some((s) => DEV.has(s));
  const seed = seedOf(`split:${set}`);
  return (own, key) => {
    const u = unitHash(key, seed);
    if (!hasTrain) return u < 0.1 ? 'test' : u < 0.2 ? 'calib' : 'train';
    if (TRAIN.has(own)) return !hasDev && u < 0.1 ? 'calib' : 'train';
    const n = counts.get(own) ?? 1;
    const keep = u < Math.min(1, HELD_OUT_CAP / n);
    if (DEV.has(own)) return keep ? 'calib' : 'train';
    if (own.startsWith('test')) return keep ? 'test' : 'train';
    return u < 0.1 ? 'test' : u < 0.2 ? 'calib' : 'train';
  };
}
