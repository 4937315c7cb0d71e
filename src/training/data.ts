/**
 * Reading case files in the shared data format: one case per line,
 * `{id, state, questions, gold}`; JevBench's layout keeps gold in a separate `gold.jsonl`
 * (`"unknown"` gold means the question is not scored). Also locates the shared data folder.
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Question, State } from '../types.js';

/** Gold answer: noul boolean, choice option name, score level. */
export type Gold = boolean | string | number;

export interface Case {
  id: string;
  /** File the case came from (basename). */
  file: string;
  state: State;
  questions: Record<string, Question>;
  /** Only questions with a known gold answer have an entry. */
  gold: Record<string, Gold>;
}

/** Repository root, from src/training or dist/src/training. */
export function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('package.json not found above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
  return dir;
}

/** The shared data folder: $EVALMODEL_DATA, else ../shared/data next to the repository. */
export function dataDir(): string {
  return process.env.EVALMODEL_DATA ?? path.resolve(repoRoot(), '../shared/data');
}

function readJsonl(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/**
 * Loads cases from a file or a folder. A folder with `cases.jsonl` and `gold.jsonl` is read in
 * JevBench's layout; any other folder contributes every `*.jsonl` file (sorted by name).
 */
export function loadCases(target: string): Case[] {
  const stat = statSync(target);
  if (stat.isDirectory()) {
    const cases = path.join(target, 'cases.jsonl');
    const gold = path.join(target, 'gold.jsonl');
    if (existsSync(cases) && existsSync(gold)) return loadSplitGold(cases, gold);
    return readdirSync(target)
      .filter((f) => f.endsWith('.jsonl'))
      .sort()
      .flatMap((f) => loadCaseFile(path.join(target, f)));
  }
  return loadCaseFile(target);
}

function toCase(raw: Record<string, unknown>, file: string, gold: Record<string, unknown>): Case {
  const questions = raw.questions as Record<string, Question>;
  const known: Record<string, Gold> = {};
  for (const [qid, g] of Object.entries(gold)) {
    if (g === 'unknown' || g === null || g === undefined || !Object.hasOwn(questions, qid)) continue;
    known[qid] = g as Gold;
  }
  return { id: String(raw.id), file: path.basename(file), state: raw.state as State, questions, gold: known };
}

function loadCaseFile(file: string): Case[] {
  return readJsonl(file).map((raw) => toCase(raw, file, (raw.gold ?? {}) as Record<string, unknown>));
}

function loadSplitGold(casesFile: string, goldFile: string): Case[] {
  const gold = new Map(readJsonl(goldFile).map((g) => [String(g.id), (g.gold ?? {}) as Record<string, unknown>]));
  return readJsonl(casesFile).map((raw) => toCase(raw, casesFile, gold.get(String(raw.id)) ?? {}));
}

/** Index of the gold outcome among a question's outcome keys (noul keys are ["true","false"]). */
export function goldIndex(question: Question, gold: Gold): number {
  switch (question.type) {
    case 'noul':
      return gold === true || gold === 'true' ? 0 : 1;
    case 'choice':
      return Object.keys(question.criteria).indexOf(String(gold));
    case 'score':
      return Number(gold);
  }
}

/** sha256 of a file's bytes, hex. */
export function fileHash(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Deterministic hash of a string to [0, 1): for seeded case splits. */
export function unitHash(text: string, seed: number): number {
  const h = createHash('sha256').update(`${seed}\u0000${text}`).digest();
  return h.readUInt32BE(0) / 2 ** 32;
}

/** A small seeded PRNG (mulberry32). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher-Yates shuffle with a given random source (returns a new array). */
export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The seeded split of the training corpus, by case: test (reported), calib (temperatures, early stopping), train. */
export const SPLIT = { seed: 20261122, test: 0.1, calib: 0.1 } as const;

export type SplitName = 'train' | 'calib' | 'test';

/**
 * Which half of the calibration split a case is in: `stop` picks each member's best epoch,
 * `fit` fits the temperatures and the zero-shot mix. Fitting temperatures on the cases that
 * also chose the epochs made them too sharp (the chosen epoch is the one that looks best
 * there), so the two use disjoint cases.
 */
export function calibHalf(c: Pick<Case, 'file' | 'id'>): 'stop' | 'fit' {
  return unitHash(`${c.file}/${c.id}`, SPLIT.seed + 1) < 0.5 ? 'stop' : 'fit';
}

/** Which part of the split a training case belongs to (by file and id, so stable under reordering). */
export function splitOf(c: Pick<Case, 'file' | 'id'>): SplitName {
  const u = unitHash(`${c.file}/${c.id}`, SPLIT.seed);
  if (u < SPLIT.test) return 'test';
  if (u < SPLIT.test + SPLIT.calib) return 'calib';
  return 'train';
}
