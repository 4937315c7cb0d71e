/**
 * `npm run data` against the shared data folder (skipped, with a message, when it is absent):
 * zero overlap with the measure-only sets (`jevbench-sample/`, `external/`) in what a build
 * produces and in the written output, and the corpus kept exactly as written in exactly the
 * split `splitOf` gives.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataDir, loadCases, splitOf } from '../src/training/data.js';
import { dataOutputDir, readDataSplit } from '../src/training/data/batches.js';
import { build } from '../src/training/data/build.js';
import { generatedCases } from '../src/training/data/generated.js';
import { measureOnlyKeys, overlapOf, strings, units } from '../src/training/data/overlap.js';
import type { DataCase } from '../src/training/data/types.js';
import { metGroup } from './prerequisites.js';

const data = dataDir();
const out = dataOutputDir();
// When absent, test/report-skips.ts says so before the run (one line each, with the reason).
const hasData = metGroup('test/data-shared.test.ts (');
const hasOutput = metGroup("test/data-shared.test.ts 'the written sets'");

/** Lets vitest's worker answer its RPC during long loops (the machine may be busy). */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Every written case with its split, yielding to the event loop now and then. */
async function* written(): AsyncGenerator<{ split: 'train' | 'calib' | 'test'; c: DataCase }> {
  for (const split of ['train', 'calib', 'test'] as const) {
    const cases = readDataSplit(split, out);
    await breathe();
    for (let i = 0; i < cases.length; i++) {
      if (i % 2000 === 0) await breathe();
      yield { split, c: cases[i]! };
    }
  }
}

/** A case's overlap: any state, or a question outside the corpus (the corpus keeps its wording). */
function overlaps(c: DataCase, keys: ReadonlySet<string>): boolean {
  if (strings(c.state).flatMap(units).some((u) => keys.has(u))) return true;
  return !c.source.startsWith('corpus/') && overlapOf(c, keys) !== null;
}

describe.skipIf(!hasData)('npm run data on the shared data', () => {
  const { keys } = hasData ? measureOnlyKeys(data) : { keys: new Set<string>() };

  it('reads the measure-only sets', () => {
    expect(keys.size).toBeGreaterThan(3000);
  });

  it('a build of some sets has zero overlap with the measure-only sets', () => {
    const built = build({ dataDir: data, sets: ['folio', 'poem_sentiment', 'strategyqa'], extra: () => generatedCases({ numbers: 100, fields: 100 }) });
    const all = Object.values(built.splits).flat();
    expect(all.length).toBeGreaterThan(5000);
    expect(all.filter((c) => overlaps(c, keys)).map((c) => c.id)).toEqual([]);
  }, 120_000);

  it.skipIf(!hasOutput)('the written sets have zero overlap with the measure-only sets', async () => {
    const bad: string[] = [];
    for await (const { c } of written()) if (overlaps(c, keys)) bad.push(c.id);
    expect(bad).toEqual([]);
  }, 300_000);

  it.skipIf(!hasOutput)('the written sets have unique case ids and keep each pair group in one split', async () => {
    const ids = new Set<string>();
    const groupSplit = new Map<string, string>();
    for await (const { split, c } of written()) {
      expect(ids.has(c.id), c.id).toBe(false);
      ids.add(c.id);
      // Corpus groups follow splitOf case by case (tested below); all other groups stay whole.
      if (c.pair === undefined || c.source.startsWith('corpus/')) continue;
      const key = `${c.source} ${c.pair}`;
      expect(groupSplit.get(key) ?? split, key).toBe(split);
      groupSplit.set(key, split);
    }
  }, 300_000);

  it.skipIf(!hasOutput)('the written sets hold every corpus case unchanged, in the split splitOf gives', async () => {
    const corpus = new Map(loadCases(path.join(data, 'train')).map((c) => [c.id, c]));
    let seen = 0;
    for await (const { split, c } of written()) {
      if (!c.source.startsWith('corpus/')) continue;
      seen++;
      const file = c.source.slice('corpus/'.length);
      const original = corpus.get(c.id)!;
      expect(original.file).toBe(file);
      expect(split).toBe(splitOf({ file, id: c.id }));
      expect(c.state).toEqual(original.state);
      expect(c.questions).toEqual(original.questions);
      expect(c.gold).toEqual(original.gold);
    }
    expect(seen).toBe(corpus.size);
  }, 300_000);
});
