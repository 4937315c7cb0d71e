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
import { banking77, clinc150, goemotions, hwu64, poemSentiment, snips } from './convert-intents.js';
import { infotabs, mnli, snli } from './convert-nli.js';
import { boolq, condaqa, folio, foolMeTwice, pubmedqa, strategyqa } from './convert-passages.js';
import { corpusCases } from './corpus.js';
import { measureOnlyKeys, overlapOf } from './overlap.js';
import type { DataCase, Placed, Row } from './types.js';
import { normalizeText, randomFor, readJsonlRows, shuffledBy } from './util.js';

/** Public sets converted, by folder name. CREAK and CSQA2 are left out: they have no state to read. */
export const CONVERTERS: Record<string, (rows: readonly Row[]) => Placed[]> = {
  boolq,
  condaqa,
  pubmedqa,
  strategyqa,
  fool_me_twice: foolMeTwice,
  folio,
  esnli_snli_devtest: snli,
  taxinli_mnli: mnli,
  infotabs,
  clinc150,
  banking77,
  hwu64,
  snips,
  poem_sentiment: poemSentiment,
  goemotions,
  emobank,
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
  /** Measure-only files the overlap check read. */
  measureFiles: string[];
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
  for (const p of placed) {
    const c = p.case;
    const corpus = c.source.startsWith('corpus/');
    const problem = caseProblem(c);
    if (problem !== null) {
      if (corpus) throw new Error(`corpus case ${c.id} malformed: ${problem}`);
      bump(dropped.malformed, c.source);
      continue;
    }
    const hit = overlapOf(c, keys);
    if (hit !== null) {
      if (corpus) {
        corpusOverlap.push(`${c.source} ${c.id}: ${hit}`);
      } else {
        bump(dropped.overlap, c.source);
        if (dropped.overlapExamples.length < 10) dropped.overlapExamples.push(`${c.source}: ${hit}`);
        continue;
      }
    }
    if (!corpus) {
      const key = normalizeText(JSON.stringify([c.state, c.questions]));
      if (seen.has(key)) {
        bump(dropped.duplicate, c.source);
        continue;
      }
      seen.add(key);
    }
    kept.push(p);
  }
  // A public state also held out is not trained on (the same text under another row id).
  const heldOut = new Set(kept.filter((p) => p.split !== 'train' && !p.case.source.startsWith('corpus/')).map((p) => stateKey(p.case)));
  const splits: Record<SplitName, DataCase[]> = { train: [], calib: [], test: [] };
  const bySplit: Record<SplitName, Placed[]> = { train: [], calib: [], test: [] };
  for (const p of kept) {
    if (p.split === 'train' && !p.case.source.startsWith('corpus/') && heldOut.has(stateKey(p.case))) {
      bump(dropped.duplicate, p.case.source);
      continue;
    }
    bySplit[p.split].push(p);
  }
  for (const s of ['train', 'calib', 'test'] as const) splits[s] = orderByGroup(bySplit[s].map((p) => p.case), randomFor(`order:${s}`));
  return { splits, dropped, measureFiles: files, corpusOverlap };
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
