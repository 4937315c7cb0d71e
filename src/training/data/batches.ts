/**
 * For the trainer: reading the written splits, and pair-aware batching. The cases of a pair
 * group (authored in the corpus, from CondaQA, or generated) go into the same batch, so that a
 * loss can compare them; everything else is shuffled. Deterministic for a given random source.
 * @module
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, type SplitName } from '../data.js';
import type { DataCase } from './types.js';
import { readJsonlRows, shuffledBy } from './util.js';

/** The folder `npm run data` writes to: $EVALMODEL_CACHE_DATA, else `.cache/data` of the repository. */
export function dataOutputDir(): string {
  return path.resolve(process.env.EVALMODEL_CACHE_DATA ?? path.join(repoRoot(), '.cache', 'data'));
}

/** The cases of one written split (throws with the command to run when it is absent). */
export function readDataSplit(split: SplitName, dir = dataOutputDir()): DataCase[] {
  const file = path.join(dir, `${split}.jsonl`);
  if (!existsSync(file)) throw new Error(`${file} not found: run \`npm run data\` first`);
  return readJsonlRows(file) as unknown as DataCase[];
}

/** Cases grouped into units: all cases sharing a `pair` value, or a case alone. First-seen order. */
export function pairUnits<T extends { pair?: string }>(cases: readonly T[]): T[][] {
  const units = new Map<string, T[]>();
  cases.forEach((c, i) => {
    const key = c.pair !== undefined ? `p:${c.pair}` : `c:${i}`;
    const list = units.get(key);
    if (list) list.push(c);
    else units.set(key, [c]);
  });
  return [...units.values()];
}

/**
 * Batches of at most `batchSize` cases in which every pair group sits whole in one batch (a
 * group larger than a batch is cut into batch-sized parts). Units are shuffled, then placed in
 * the first of a few open batches with room, so batches come out full but for the last few.
 */
export function pairAwareBatches<T extends { pair?: string }>(cases: readonly T[], batchSize: number, random: () => number, open = 8): T[][] {
  if (!(batchSize >= 1)) throw new RangeError('batchSize must be at least 1');
  const out: T[][] = [];
  const bins: T[][] = [];
  for (const unit of shuffledBy(pairUnits(cases), random)) {
    for (let i = 0; i < unit.length; i += batchSize) {
      const part = unit.slice(i, i + batchSize);
      let bin = bins.find((b) => b.length + part.length <= batchSize);
      if (!bin) {
        if (bins.length >= open) out.push(bins.shift()!);
        bin = [];
        bins.push(bin);
      }
      bin.push(...part);
      if (bin.length === batchSize) {
        out.push(bin);
        bins.splice(bins.indexOf(bin), 1);
      }
    }
  }
  out.push(...bins.filter((b) => b.length > 0));
  return out;
}
