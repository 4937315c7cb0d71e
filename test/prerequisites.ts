/**
 * What some test groups need from the machine beyond `npm install`, in one place: the test
 * files skip on these conditions, and test/report-skips.ts (vitest's globalSetup) prints one
 * line per group that will skip and why, so that `npm test` never skips silently.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { dataDir, repoRoot } from '../src/training/data.js';
import { dataOutputDir } from '../src/training/data/batches.js';

/** Debian's Chromium, driven by playwright-core in test/site.test.ts (no browser is downloaded). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The shared training data (EVALMODEL_DATA, else ../shared/data): not part of the repository. */
export const TRAIN_DATA = path.join(dataDir(), 'train');

/** The public and measure-only sets that test/data-shared.test.ts checks `npm run data` against. */
export const SHARED_SETS = ['public', 'jevbench-sample', 'external'].map((d) => path.join(dataDir(), d));

/** What `npm run data` wrote (EVALMODEL_CACHE_DATA, else .cache/data): checked when present. */
export const DATA_OUTPUT = path.join(dataOutputDir(), 'train.jsonl');

/** The reader model's shipped weights (issue 15): the plain-question threshold is asserted once they exist. */
/** A group of tests that needs something, and why it skips when that is absent. */
export interface Prerequisite {
  group: string;
  met: boolean;
  why: string;
}

export function prerequisites(): Prerequisite[] {
  return [
    {
      group: 'test/site.test.ts (documentation site and playground in headless Chromium)',
      met: existsSync(CHROMIUM),
      why: `no Chromium at ${CHROMIUM} (set CHROMIUM_PATH, or: apt-get update && apt-get install -y chromium)`,
    },
    {
      group: "test/training.test.ts 'training data' (reads the shared training data)",
      met: existsSync(TRAIN_DATA),
      why: `no training data at ${TRAIN_DATA} (set EVALMODEL_DATA to the folder holding train/; the data is not part of the repository)`,
    },
    {
      group: "test/data-shared.test.ts (npm run data against the shared public and measure-only sets)",
      met: SHARED_SETS.every((d) => existsSync(d)),
      why: `no ${SHARED_SETS.filter((d) => !existsSync(d)).join(', ')} (set EVALMODEL_DATA; the data is not part of the repository)`,
    },
    {
      group: "test/data-shared.test.ts 'the written sets' (zero overlap, ids, corpus kept, in the output of npm run data)",
      met: SHARED_SETS.every((d) => existsSync(d)) && existsSync(DATA_OUTPUT),
      why: SHARED_SETS.every((d) => existsSync(d)) ? `no ${DATA_OUTPUT}: run \`npm run data\` first (or set EVALMODEL_CACHE_DATA)` : 'no shared data (see above)',
    },
  ];
}

/** Whether the named file's prerequisite is met. */
export function met(file: 'site' | 'training'): boolean {
  const p = prerequisites().find((x) => x.group.startsWith(`test/${file}.test.ts`));
  return p?.met ?? false;
}

/** Whether the prerequisite of the group whose name starts with `prefix` is met. */
export function metGroup(prefix: string): boolean {
  return prerequisites().find((x) => x.group.startsWith(prefix))?.met ?? false;
}
