/**
 * `npm run data`: builds the mixed training set from the shared data folder and writes
 * `train.jsonl`, `calib.jsonl` and `test.jsonl` (one case per line) under `.cache/data/` of the
 * repository, or $EVALMODEL_CACHE_DATA; with `--report`, also prints the data report (it is
 * always written beside the output as report.md and report.json).
 *
 * Options: `--out DIR`, `--report`, `--sets a,b` (only these public sets), `--no-generated`.
 * @module
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { dataDir, repoRoot } from '../data.js';
import { build } from './build.js';
import { generatedCases } from './generated.js';
import { fieldPairCases } from './gen-field-pairs.js';
import { makeReport, reportMarkdown } from './report.js';
import type { DataCase } from './types.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

export function outputDir(): string {
  return path.resolve(arg('--out') ?? process.env.EVALMODEL_CACHE_DATA ?? path.join(repoRoot(), '.cache', 'data'));
}

/** Written to a temporary name and renamed, so a reader never sees a half-written file. */
function writeAtomic(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

function writeJsonl(file: string, cases: readonly DataCase[]): void {
  writeAtomic(file, cases.map((c) => JSON.stringify(c)).join('\n') + (cases.length ? '\n' : ''));
}

const questionCount = (cases: readonly DataCase[]) => cases.reduce((n, c) => n + Object.keys(c.questions).length, 0);

async function main(): Promise<void> {
  const started = Date.now();
  const out = outputDir();
  const sets = arg('--sets')?.split(',');
  const generated = !process.argv.includes('--no-generated');
  const built = build({ dataDir: dataDir(), log: (l) => console.log(l), ...(sets ? { sets } : {}), ...(generated ? { extra: (placed) => [...generatedCases(), ...fieldPairCases(placed)] } : {}) });
  mkdirSync(out, { recursive: true });
  for (const [name, cases] of Object.entries(built.splits)) {
    writeJsonl(path.join(out, `${name}.jsonl`), cases);
    console.log(`${name}: ${cases.length} cases, ${questionCount(cases)} questions`);
  }
  const report = makeReport(built, built.measureKeys);
  const markdown = reportMarkdown(report);
  writeAtomic(path.join(out, 'report.json'), JSON.stringify(report, null, 1) + '\n');
  writeAtomic(path.join(out, 'report.md'), markdown);
  if (process.argv.includes('--report')) console.log(`\n${markdown}`);
  if (report.overlap.remaining !== 0) throw new Error(`${report.overlap.remaining} written cases overlap a measure-only set`);
  console.log(`wrote ${out} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
