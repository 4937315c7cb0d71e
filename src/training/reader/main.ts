/**
 * `npm run train`: the whole run. Encodes every text once (two processes), trains the ensemble
 * members in parallel (one worker thread each, `train.ts`, sharing one copy of the encodings; each resumes from its checkpoint when the
 * run is restarted with the same settings), then averages the members' logits, fits
 * temperatures per type and option-count bucket on half of the held-out calibration split,
 * reports the held-out test split and writes `weights/reader-<version>.{json,bin}`.
 *
 * Environment: TRAIN_MEMBERS (2) and everything train.ts reads (TRAIN_INIT may name several runs,
 * comma-separated: their members side by side, which with TRAIN_EPOCHS=0 scores and calibrates an
 * ensemble of earlier runs; `A+B`: their members' weight soup; `weights`: the reader shipped in
 * weights/, so a continuation needs no earlier run's cache); TRAIN_VERSION (1.13.0),
 * TRAIN_OUT (weights folder; a run from `weights` should write elsewhere, or its rerun gets a new key).
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../encoder/backend.js';
import { BASE_HEADS, paramShapes } from '../../heads/reader/architecture.js';
import type { ReaderParams } from '../../heads/reader/forward.js';
import { BUCKETS, decodeParams, encodeParams, type ReaderManifest } from '../../heads/reader/weights.js';
import { sha256Hex } from '../../heads/sha256.js';
import { repoRoot } from '../data.js';
import { fitTemperatures, formatMetrics, metrics } from './calibrate.js';
import type { ReaderExample, ReaderItem } from './examples.js';
import { predict, type Prediction } from './loop.js';
import { count, loadExamples, memberDir, runKey, runSettings, type MemberData } from './train.js';

// Synchronous: a member thread trains without yielding, so an asynchronous stream would hold
// its lines back until the run ends.
const log = (msg: string) => writeSync(2, `[train ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** Runs one member in a worker thread; its examples' encodings are shared memory, not copies. */
function runMember(data: MemberData): Promise<void> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'train.js');
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { workerData: data });
    worker.on('error', reject);
    worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`member ${data.member} exited with ${code}`))));
  });
}

/** Member logits averaged per question. */
function averaged(perMember: readonly Prediction[][]): Prediction[] {
  const sums = new Map<ReaderItem, number[]>();
  for (const preds of perMember) {
    for (const p of preds) {
      const s = sums.get(p.item);
      if (!s) sums.set(p.item, [...p.logits]);
      else p.logits.forEach((l, k) => (s[k]! += l));
    }
  }
  return [...sums].map(([item, s]) => ({ item, logits: s.map((x) => x / perMember.length) }));
}

/** The base heads' own answers to these examples (what the reader starts from). */
function baseOnly(examples: readonly ReaderExample[]): Prediction[] {
  return examples.flatMap((ex) => ex.items.map((item) => ({ item, logits: item.type === 'noul' ? [item.base![0]! - item.base![1]!, 0] : [...item.base!] })));
}

/** A member's parameters from its latest checkpoint (names `p:<param>` in state.json's index). */
function checkpointValues(dir: string): Record<string, Float32Array> {
  const meta = JSON.parse(readFileSync(path.join(dir, 'state.json'), 'utf8')) as { index: { n: string; len: number }[] };
  const buf = readFileSync(path.join(dir, 'state.bin'));
  const floats = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  const out: Record<string, Float32Array> = {};
  let at = 0;
  for (const { n, len } of meta.index) {
    if (n.startsWith('p:')) out[n.slice(2)] = floats.slice(at, at + len);
    at += len;
  }
  return out;
}

/**
 * `--snapshot KEY`: weights from the members' latest checkpoints of run KEY while it trains, with
 * every temperature 1 (nothing is fitted and no data is loaded): to try the serving path and
 * measure early, never to ship.
 */
function snapshot(key: string): void {
  const settings = runSettings();
  const dirs = Array.from({ length: 8 }, (_, i) => memberDir(key, i)).filter((d) => existsSync(path.join(d, 'state.json')));
  if (dirs.length === 0) throw new Error(`no checkpoints of run ${key}`);
  const bytes = encodeParams(settings.shape, dirs.map(checkpointValues));
  const outDir = process.env.TRAIN_OUT ?? path.join(repoRoot(), '.cache', 'reader-snapshot');
  mkdirSync(outDir, { recursive: true });
  const version = process.env.TRAIN_VERSION ?? '1.13.0';
  writeFileSync(path.join(outDir, `reader-${version}.bin`), bytes);
  const manifest: ReaderManifest = { format: 'evalmodel-reader/1', weights: `reader-${version}.bin`, sha256: sha256Hex(bytes), dtype: 'float16', shape: settings.shape, ordinal: true, fieldPair: true, members: dirs.length, temperatures: Object.fromEntries(BUCKETS.map((b) => [b, 1])), snapshotOf: key };
  writeFileSync(path.join(outDir, `reader-${version}.json`), JSON.stringify(manifest, null, 2) + '\n');
  log(`snapshot of ${dirs.length} members of run ${key} in ${outDir}`);
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--snapshot');
  if (at > 0) return snapshot(process.argv[at + 1] ?? '');
  const settings = runSettings();
  const members = Number(process.env.TRAIN_MEMBERS ?? 2);
  const { train, calib, test, corpus, converted, cases } = await loadExamples(settings, 2);
  const key = runKey(settings, train);
  log(`run ${key}: ${members} members; questions train ${count(train)}, calib ${count(calib)}, test ${count(test)}`);
  const evalSet = calib.filter((_, i) => i % 2 === 0).slice(0, 1500);
  log(`base heads alone, calib (stop half, first 1,500): ${formatMetrics(metrics(baseOnly(evalSet)))}`);
  await Promise.all(Array.from({ length: members }, (_, member) => runMember({ member, key, train, evalSet })));

  await initBackend('wasm');
  const finals = Array.from({ length: members }, (_, i) => {
    const file = path.join(memberDir(key, i), 'final.json');
    if (!existsSync(file)) throw new Error(`member ${i} wrote no ${file}`);
    return JSON.parse(readFileSync(file, 'utf8')) as { values: Record<string, number[]>; steps: number; totalSteps: number; seed: number };
  });
  const shapes = paramShapes(settings.shape);
  const values = finals.map((f) => Object.fromEntries(Object.keys(shapes).map((n) => [n, Float32Array.from(f.values[n]!)])));
  const params: ReaderParams[] = values.map((v) => Object.fromEntries(Object.entries(shapes).map(([n, sh]) => [n, tf.tensor(v[n]!, sh)])));
  const fit = calib.filter((_, i) => i % 2 === 1);
  const temperatures = fitTemperatures(averaged(params.map((p) => predict(p, settings.shape, fit))));
  const heldOut = metrics(averaged(params.map((p) => predict(p, settings.shape, test))), temperatures);
  const perMember = params.map((p) => metrics(predict(p, settings.shape, test)));
  const baseHeldOut = metrics(baseOnly(test), fitTemperatures(baseOnly(fit)));
  log(`base heads alone held-out test (same temperature fit): ${formatMetrics(baseHeldOut)}`);
  log(`temperatures ${JSON.stringify(temperatures)}`);
  perMember.forEach((m, i) => log(`member ${i} held-out test: ${formatMetrics(m)}`));
  log(`ensemble held-out test: ${formatMetrics(heldOut)}`);

  // The members were trained in float32 and ship in float16: the test split, read again
  // through the rounded weights, says what that costs.
  const bytes = encodeParams(settings.shape, values);
  const version = process.env.TRAIN_VERSION ?? '1.13.0';
  const outDir = process.env.TRAIN_OUT ?? path.join(repoRoot(), 'weights');
  mkdirSync(outDir, { recursive: true });
  const weightsFile = `reader-${version}.bin`;
  writeFileSync(path.join(outDir, weightsFile), bytes);
  const bySource = new Map<string, number>();
  for (const c of cases) if (c.split === 'train') bySource.set(c.source.split('/')[0]!, (bySource.get(c.source.split('/')[0]!) ?? 0) + Object.keys(c.gold).length);
  const manifest: ReaderManifest = {
    format: 'evalmodel-reader/1',
    weights: weightsFile,
    sha256: sha256Hex(bytes),
    dtype: 'float16',
    shape: settings.shape,
    ordinal: true,
    fieldPair: true,
    base: BASE_HEADS,
    members,
    temperatures,
    training: {
      run: key,
      seeds: finals.map((f) => f.seed),
      steps: finals.map((f) => `${f.steps}/${f.totalSteps}`),
      epochs: settings.epochs,
      lr: settings.lr,
      data: settings.data,
      corpusCases: corpus,
      convertedCases: converted,
      questions: { train: count(train), calib: count(calib), test: count(test) },
      trainQuestionsBySource: Object.fromEntries([...bySource].sort()),
    },
    heldOut,
    baseHeldOut,
  };
  const rounded = decodeParams(manifest, bytes).map((v) => Object.fromEntries(Object.entries(shapes).map(([n, sh]) => [n, tf.tensor(v[n]!, sh)])));
  const shipped = averaged(rounded.map((p) => predict(p, settings.shape, test)));
  manifest.heldOutFloat16 = metrics(shipped, temperatures);
  log(`ensemble held-out test through the float16 weights: ${formatMetrics(manifest.heldOutFloat16 as ReturnType<typeof metrics>)}`);
  // Per source family (corpus, a generator, a public set, or a derived kind such as topics): a new
  // source raises the pooled figure by its own questions, so a run is compared family by family.
  // Each generator of generated/* is its own family: a generator added by a run is set apart.
  const family = (source: string) => source.split('/').slice(0, source.startsWith('generated/') ? 2 : 1).join('/');
  const familyOf = new Map(test.flatMap((ex) => ex.items.map((item) => [item, family(ex.source)] as const)));
  const families = [...new Set(familyOf.values())].sort();
  const bySourceFamily = Object.fromEntries(families.map((f) => [f, metrics(shipped.filter((p) => familyOf.get(p.item) === f), temperatures)]));
  for (const f of families) log(`  ${f}: ${formatMetrics(bySourceFamily[f]!)}`);
  manifest.heldOutFloat16BySource = bySourceFamily;
  writeFileSync(path.join(outDir, `reader-${version}.json`), JSON.stringify(manifest, null, 2) + '\n');
  log(`wrote ${path.join(outDir, weightsFile)} (${bytes.byteLength} bytes) and its manifest`);
}

await main();
