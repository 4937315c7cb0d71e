/**
 * The whole build: corpus cases as they are, every usable public set converted, generated
 * counterfactual pairs; then malformed cases, overlaps with the measure-only sets and duplicates
 * are dropped (each counted), and each split is shuffled by pair group so that the cases of a
 * group stay adjacent. Deterministic: the same inputs give the same output bytes.
 * @module
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SplitName } from '../data.js';
import { caseProblem } from './check.js';
import { cefr, emobank, onestopenglish } from './convert-graded.js';
import { emobankPolarity, goemotionsPolarity, poemPolarity, snliSimilarity } from './convert-derived.js';
import { banking77, clinc150, goemotions, hwu64, poemSentiment, snips } from './convert-intents.js';
import { infotabs, mnli, snli } from './convert-nli.js';
import { mnliQuestions, snliQuestions } from './convert-questions.js';
import { goemotionsRatings, poemRatings } from './convert-rated.js';
import { hwuTopics, mnliTopics } from './convert-topics.js';
import { boolq, condaqa, folio, foolMeTwice, pubmedqa, strategyqa } from './convert-passages.js';
import { corpusCases } from './corpus.js';
import { measureOnlyKeys, overlapOf } from './overlap.js';
import type { DataCase, Placed, Row } from './types.js';
import { normalizeText, randomFor, readJsonlRows, shuffledBy } from './util.js';

/**
 * Public sets converted, by folder name. CREAK and CSQA2 are left out: they have no state to read.
 * Some sets also give a derived task as a source of its own (convert-derived.ts, convert-questions.ts, convert-topics.ts,
 * convert-rated.ts).
 */
export const CONVERTERS: Record<string, (rows: readonly Row[]) => Placed[]> = {
  boolq,
  condaqa,
  pubmedqa,
  strategyqa,
  fool_me_twice: foolMeTwice,
  folio,
  esnli_snli_devtest: (rows) => [...snli(rows), ...snliSimilarity(rows), ...snliQuestions(rows)],
  taxinli_mnli: (rows) => [...mnli(rows), ...mnliQuestions(rows), ...mnliTopics(rows)],
  infotabs,
  clinc150,
  banking77,
  hwu64: (rows) => [...hwu64(rows), ...hwuTopics(rows)],
  snips,
  poem_sentiment: (rows) => [...poemSentiment(rows), ...poemPolarity(rows), ...poemRatings(rows)],
  goemotions: (rows) => [...goemotions(rows), ...goemotionsPolarity(rows), ...goemotionsRatings(rows)],
  emobank: (rows) => [...emobank(rows), ...emobankPolarity(rows)],
  cefr_sp_wikiauto: cefr,
  onestopenglish,
};

export interface Dropped {
  malformed: Record<string, number>;
  overlap: Record<string, number>;
  duplicate: Record<string, number>;
  /** A few examples of overlapping units, for the report. */
  overlapExamples: string[];
}

export interface Built {
  splits: Record<SplitName, DataCase[]>;
  dropped: Dropped;
  /** Measure-only files the overlap check read, and their normalised units. */
  measureFiles: string[];
  measureKeys: Set<string>;
  /** Corpus cases that overlap a measure-only set (kept, as the corpus is kept as written). */
  corpusOverlap: string[];
}

const bump = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);

export interface BuildOptions {
  dataDir: string;
  /** Only these public sets (default: all of {@link CONVERTERS}). */
  sets?: readonly string[];
  /** Extra cases (generated pairs), already placed. */
  extra?: (placed: readonly Placed[]) => Placed[];
  log?: (line: string) => void;
}

export function build(opts: BuildOptions): Built {
  const log = opts.log ?? (() => {});
  const placed: Placed[] = [];
  const trainDir = path.join(opts.dataDir, 'train');
  if (existsSync(trainDir)) placed.push(...corpusCases(trainDir));
  log(`corpus: ${placed.length} cases`);
  for (const set of opts.sets ?? Object.keys(CONVERTERS)) {
    const dir = path.join(opts.dataDir, 'public', set);
    const file = path.join(dir, 'data.jsonl');
    if (!existsSync(file)) {
      log(`${set}: absent, skipped`);
      continue;
    }
    const rows = readJsonlRows(file);
    const cases = CONVERTERS[set]!(rows);
    log(`${set}: ${rows.length} rows -> ${cases.length} cases`);
    placed.push(...cases);
  }
  if (opts.extra) placed.push(...opts.extra(placed));

  const dropped: Dropped = { malformed: {}, overlap: {}, duplicate: {}, overlapExamples: [] };
  const { keys, files } = measureOnlyKeys(opts.dataDir);
  const corpusOverlap: string[] = [];
  const seen = new Set<string>();
  const kept: Placed[] = [];
  // Public and generated cases are checked by unit (a pair group, or one case): a group that
  // loses a case loses all of them, so no pair is left with one side.
  for (const unit of units(placed)) {
    const source = unit[0]!.case.source;
    if (source.startsWith('corpus/')) {
      for (const p of unit) {
        const problem = caseProblem(p.case);
        if (problem !== null) throw new Error(`corpus case ${p.case.id} malformed: ${problem}`);
        const hit = overlapOf(p.case, keys);
        if (hit !== null) corpusOverlap.push(`${p.case.source} ${p.case.id}: ${hit}`);
      }
      kept.push(...unit);
      continue;
    }
    let reason: keyof Omit<Dropped, 'overlapExamples'> | null = null;
    const dupKeys = unit.map((p) => normalizeText(JSON.stringify([p.case.state, p.case.questions])));
    for (const p of unit) {
      if (caseProblem(p.case) !== null) reason = 'malformed';
      else {
        const hit = overlapOf(p.case, keys);
        if (hit !== null) {
          reason = 'overlap';
          if (dropped.overlapExamples.length < 10) dropped.overlapExamples.push(`${p.case.source}: ${hit}`);
        }
      }
      if (reason !== null) break;
    }
    if (reason === null && dupKeys.some((k) => seen.has(k))) reason = 'duplicate';
    if (reason !== null) {
      for (const p of unit) bump(dropped[reason], p.case.source);
      continue;
    }
    for (const k of dupKeys) seen.add(k);
    kept.push(...unit);
  }
  // A public state also held out is not trained on (the same text under another row id).
  const isCorpus = (p: Placed) => p.case.source.startsWith('corpus/');
  const heldOut = new Set(kept.filter((p) => p.split !== 'train' && !isCorpus(p)).map((p) => stateKey(p.case)));
  const splits: Record<SplitName, DataCase[]> = { train: [], calib: [], test: [] };
  const bySplit: Record<SplitName, Placed[]> = { train: [], calib: [], test: [] };
  for (const unit of units(kept)) {
    if (unit[0]!.split === 'train' && !isCorpus(unit[0]!) && unit.some((p) => heldOut.has(stateKey(p.case)))) {
      for (const p of unit) bump(dropped.duplicate, p.case.source);
      continue;
    }
    for (const p of unit) bySplit[p.split].push(p);
  }
  // Some sets repeat row ids (HWU64's cross-validation files, a few MultiNLI rows): case ids are
  // made unique with a counter, in build order, so they stay stable from run to run.
  const ids = new Map<string, number>();
  for (const p of kept) {
    const n = ids.get(p.case.id) ?? 0;
    ids.set(p.case.id, n + 1);
    if (n > 0) p.case.id = `${p.case.id}~${n + 1}`;
  }
  for (const s of ['train', 'calib', 'test'] as const) splits[s] = orderByGroup(bySplit[s].map((p) => p.case), randomFor(`order:${s}`));
  return { splits, dropped, measureFiles: files, measureKeys: keys, corpusOverlap };
}

/** Cases grouped by split and pair group (a case without `pair` is its own unit), in first-seen order. */
function units(placed: readonly Placed[]): Placed[][] {
  const out = new Map<string, Placed[]>();
  placed.forEach((p, i) => {
    const key = p.case.pair !== undefined ? `${p.split}:${p.case.source}:${p.case.pair}` : `#${i}`;
    const list = out.get(key);
    if (list) list.push(p);
    else out.set(key, [p]);
  });
  return [...out.values()];
}

function stateKey(c: DataCase): string {
  return normalizeText(typeof c.state === 'string' ? c.state : JSON.stringify(c.state));
}

/**
 * Shuffles cases by unit, where a unit is a pair group (all cases sharing `pair`) or a single
 * case: the cases of a group come out adjacent, in their original order.
 */
export function orderByGroup(cases: readonly DataCase[], random: () => number): DataCase[] {
  const units = new Map<string, DataCase[]>();
  cases.forEach((c, i) => {
    const key = c.pair !== undefined ? `pair:${c.pair}` : `case:${i}`;
    const list = units.get(key);
    if (list) list.push(c);
    else units.set(key, [c]);
  });
  return shuffledBy([...units.values()], random).flat();
}
