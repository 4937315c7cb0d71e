/**
 * `npm run train:base`: the shipped heads' answers to every training, calibration and test
 * question of a reader run, as log-probabilities per outcome. The reader learns a correction on
 * top of them (its readouts start at zero, so its first step reproduces today's heads, as the
 * model issue asks), and serving adds the same correction to the same heads' answers.
 *
 * Runs the real engine (default model, exact stage off: the exact stage answers before any
 * model at serving time, so the heads' own answers are what the reader corrects). Resumable:
 * cases already in the output file are skipped.
 *
 * Environment: everything train.ts reads for the data (TRAIN_DATA, TRAIN_SOURCE_CAP, ...),
 * BASE_THREADS (intra-op threads of the encoder, 1), BASE_SHARD (`i/n`: this process does every
 * n-th case from the i-th, so n processes share the work), BASE_TEST_CAP (test cases at most, 3000:
 * the test split is only reported).
 * @module
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { writeSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createEngine } from '../../engine/engine.js';
import { renderQuestion } from '../../canonical/index.js';
import { baseOf } from '../../heads/reader/correct.js';
import type { Answer, Question } from '../../types.js';
import { repoRoot, rng, shuffled } from '../data.js';
import { loadTrainingCases } from './examples.js';
import { runSettings } from './train.js';

const log = (msg: string) => writeSync(2, `[base ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** Where the heads' answers of a run's cases are kept (one JSON line per case). */
export function baseLogitsFile(): string {
  return path.join(repoRoot(), '.cache', 'base-logits', 'heads-1.13.0.jsonl');
}

/**
 * The answer's probabilities per outcome, in the rendered question's outcome order, read as the
 * reader's base (`baseOf`, the same function serving uses on the heads' probabilities).
 */
export function logProbabilities(question: Question, answer: Answer): number[] {
  const keys = renderQuestion(question).keys;
  switch (answer.type) {
    case 'noul':
      return baseOf('noul', [answer.noul]);
    case 'choice':
      return baseOf('choice', keys.map((k) => answer.probabilities[k] ?? 0));
    case 'score':
      return baseOf('score', keys.map((_, i) => answer.probabilities[String(i)] ?? 0));
  }
}

/** Case id (`source/id`) -> question id -> log-probabilities, from every shard's file. */
export function readBaseLogits(file = baseLogitsFile()): Map<string, Record<string, number[]>> {
  const out = new Map<string, Record<string, number[]>>();
  const dir = path.dirname(file);
  if (!existsSync(dir)) return out;
  const files = readdirSync(dir).filter((f) => f.startsWith(path.basename(file)));
  for (const line of files.flatMap((f) => readFileSync(path.join(dir, f), 'utf8').split('\n'))) {
    if (line.trim() === '') continue;
    try {
      const { id, logits } = JSON.parse(line) as { id: string; logits: Record<string, number[]> };
      out.set(id, logits);
    } catch {
      // A line cut by a killed run: that case is simply done again.
    }
  }
  return out;
}

async function main(): Promise<void> {
  const file = baseLogitsFile();
  mkdirSync(path.dirname(file), { recursive: true });
  const done = readBaseLogits(file);
  const { cases } = loadTrainingCases(runSettings().data);
  const [shard, shards] = (process.env.BASE_SHARD ?? '0/1').split('/').map(Number) as [number, number];
  const testCap = Number(process.env.BASE_TEST_CAP ?? 3000);
  // Calibration cases first, then a seeded sample of the test split (only reported), then training.
  const order = { calib: 0, test: 1, train: 2 } as const;
  const tests = new Set(shuffled(cases.filter((c) => c.split === 'test'), rng(11)).slice(0, testCap));
  // Training cases in a seeded random order, so that any prefix is a fair sample to train on.
  const todo = shuffled(cases, rng(13))
    .filter((c) => c.split !== 'test' || tests.has(c))
    .sort((a, b) => order[a.split] - order[b.split])
    .filter((c, i) => i % shards === shard && !done.has(`${c.source}/${c.id}`) && Object.keys(c.gold).length > 0);
  log(`${cases.length} cases, ${done.size} done, ${todo.length} to do`);
  const engine = await createEngine({ exact: false, threads: Number(process.env.BASE_THREADS ?? 1) });
  const started = Date.now();
  let lines: string[] = [];
  let failed = 0;
  for (let i = 0; i < todo.length; i++) {
    const c = todo[i]!;
    const questions = Object.fromEntries(Object.keys(c.gold).map((q) => [q, c.questions[q]!]));
    try {
      const res = await engine.evaluate(c.state, questions);
      const logits: Record<string, number[]> = {};
      for (const [qid, a] of Object.entries(res.answers)) logits[qid] = logProbabilities(questions[qid]!, a);
      lines.push(JSON.stringify({ id: `${c.source}/${c.id}`, logits }));
    } catch {
      failed++;
    }
    if (lines.length >= 200 || i === todo.length - 1) {
      appendFileSync(`${file}.${shard}`, lines.map((l) => l + '\n').join(''));
      lines = [];
      const s = (Date.now() - started) / 1000;
      if ((i + 1) % 2000 < 200 || i === todo.length - 1) log(`${i + 1}/${todo.length} cases in ${s.toFixed(0)} s (${((1000 * s) / (i + 1)).toFixed(1)} ms each), ${failed} refused`);
    }
  }
  await engine.close();
}

// Run only as a script: train.ts imports `readBaseLogits` from here.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
