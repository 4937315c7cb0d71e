/**
 * One ensemble member of a reader run (started by main.ts, one thread per member): trains the
 * reader (src/heads/reader) over the frozen encoder's cached outputs, on the original corpus
 * (weighted up: it is the users' domain) and the converted set of `npm run data`, and writes
 * its parameters.
 *
 * Seeded and resumable: parameters and Adam's moments are checkpointed to the member's folder
 * under `.cache/reader-members/` every TRAIN_CHECKPOINT_STEPS steps and picked up by the next
 * run with the same settings (the batch order is a function of the seed and the epoch).
 *
 * Environment: TRAIN_MEMBER (index), TRAIN_EPOCHS (1), TRAIN_SEED (7), TRAIN_LR (5e-4),
 * TRAIN_CORPUS_WEIGHT (3), TRAIN_SOURCE_CAP (6000 training cases per converted source),
 * TRAIN_DATA (folder of `npm run data`, default .cache/data), TRAIN_MAX_CASES (0 = all; a quick
 * run), TRAIN_MINUTES (stop training after this many minutes and write what was learned),
 * TRAIN_REINIT (comma-separated name prefixes of parameters to start afresh when resuming),
 * TRAIN_DROP_NOUL / TRAIN_KEEP_NOUL (source prefixes whose yes/no questions are left out / the only
 * ones kept), TRAIN_INIT (the key of an earlier run whose members' final parameters this run's
 * members start from, instead of the initialisation: a continuation on new data; parameters
 * that run lacks, such as the ordinal score term's, keep their initialisation, which leaves its
 * members' answers unchanged at step 0; several keys, comma-separated, lay their runs' members side
 * by side, and `A+B` starts from their weight soup; `weights` is the shipped reader: `initSources`),
 * EVALMODEL_DATA, EVALMODEL_CACHE.
 * @module
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { writeSync } from 'node:fs';
import path from 'node:path';
import { isMainThread, workerData } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs-core';
import { initBackend } from '../../encoder/backend.js';
import { decodeParams, type ReaderManifest } from '../../heads/reader/weights.js';
import { BASE_HEADS, DEFAULT_SHAPE, initOf, paramShapes, tiedAtInit, type ReaderShape } from '../../heads/reader/architecture.js';
import { createTokenizer, loadVocabulary } from '../../tokenizer/index.js';
import { repoRoot, rng } from '../data.js';
import { cacheDir, EncodingStore } from '../encode-cache.js';
import { registerGradients } from '../gradients.js';
import { formatMetrics, metrics } from './calibrate.js';
import { readBaseLogits } from './base-logits.js';
import { buildReaderExamples, loadTrainingCases, readerTexts, type ReaderExample, type ReaderItem } from './examples.js';
import { registerPlainMatMulGradient } from './matmul-gradient.js';
import { batchLoss, counterfactualPairs, makeBatches, predict } from './loop.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
// Synchronous: a member thread trains without yielding, so an asynchronous stream would hold
// its lines back until the run ends.
const log = (msg: string) => writeSync(2, `[train ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

export function initParams(shape: ReaderShape, seed: number): Record<string, tf.Variable> {
  const out: Record<string, tf.Variable> = {};
  let s = seed;
  for (const [name, sh] of Object.entries(paramShapes(shape))) {
    const how = initOf(name, sh);
    const init = how === 'zeros' ? tf.zeros(sh) : how === 'ones' ? tf.ones(sh) : tf.randomNormal(sh, 0, how, 'float32', (s += 101));
    out[name] = tf.variable(init, true, name);
  }
  for (const [name, from] of Object.entries(tiedAtInit(shape))) out[name]!.assign(out[from]!);
  return out;
}

/**
 * TRAIN_INIT: an earlier run's final parameters into this run's variables. Parameters that run
 * lacks (added to the architecture since, like the ordinal score term's) keep their
 * initialisation, which leaves the earlier members' answers unchanged at step 0. Returns their names.
 */
export function continueFrom(params: Record<string, tf.Variable>, values: Record<string, number[]>): string[] {
  const fresh: string[] = [];
  for (const [name, v] of Object.entries(params)) {
    if (values[name]) v.assign(tf.tensor(values[name], v.shape));
    else fresh.push(name);
  }
  return fresh;
}

/** One earlier member a member starts from: `run` is a run's key, or `weights` for the reader shipped in weights/. */
export interface InitSource {
  run: string;
  member: number;
}

/**
 * The earlier members that member `member` of `members` starts from. TRAIN_INIT names one run
 * (member i starts from its member i) or several, comma-separated, whose members are laid side by
 * side: with `A,B` and four members, 0 and 1 start from A's 0 and 1, 2 and 3 from B's. With zero
 * epochs, that is an ensemble of earlier runs scored and calibrated on this run's data. An entry
 * `A+B` is a weight soup: member i starts from the average of A's and B's member i (`soupValues`;
 * runs that continued one another share a basin, so their average is a model too). The name
 * `weights` stands for the reader shipped in weights/ (`shippedReader`): a run's members live in
 * .cache, which a fresh machine lacks, while the shipped file is in every checkout.
 */
export function initSources(init: string, member: number, members: number): InitSource[] {
  const keys = init.split(',');
  if (members % keys.length !== 0) throw new Error(`TRAIN_INIT names ${keys.length} runs; ${members} members do not split evenly among them`);
  const per = members / keys.length;
  return keys[Math.floor(member / per)]!.split('+').map((run) => ({ run, member: member % per }));
}

/** The manifest of the reader shipped in weights/ for TRAIN_VERSION (1.13.0), and its folder. */
function shippedManifest(): { manifest: ReaderManifest; dir: string } {
  const dir = path.join(repoRoot(), 'weights');
  return { manifest: JSON.parse(readFileSync(path.join(dir, `reader-${process.env.TRAIN_VERSION ?? '1.13.0'}.json`), 'utf8')) as ReaderManifest, dir };
}

/** The shipped reader's manifest with its members decoded (and checked against the manifest's hash). */
export function shippedReader(): { manifest: ReaderManifest; members: Record<string, Float32Array>[] } {
  const { manifest, dir } = shippedManifest();
  return { manifest, members: decodeParams(manifest, readFileSync(path.join(dir, manifest.weights))) };
}

/** An earlier member's parameters by name: a run's `final.json`, or member i of the shipped reader. */
export function initValues(source: InitSource): Record<string, number[]> {
  if (source.run !== 'weights') return (JSON.parse(readFileSync(path.join(memberDir(source.run, source.member), 'final.json'), 'utf8')) as { values: Record<string, number[]> }).values;
  const { manifest, members } = shippedReader();
  const values = members[source.member];
  if (!values) throw new Error(`TRAIN_INIT: the shipped reader has ${manifest.members} members, member ${source.member} was asked for`);
  return Object.fromEntries(Object.entries(values).map(([name, v]) => [name, Array.from(v)]));
}

/** Parameters averaged over several members; a parameter some of them lack is left out (it keeps its initialisation). */
export function soupValues(members: readonly Record<string, number[]>[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const name of Object.keys(members[0]!)) {
    const all = members.map((m) => m[name]);
    if (all.some((v) => !v || v.length !== all[0]!.length)) continue;
    out[name] = all[0]!.map((_, i) => all.reduce((sum, v) => sum + v![i]!, 0) / all.length);
  }
  return out;
}

interface Checkpoint {
  key: string;
  epoch: number;
  batch: number;
  step: number;
}

async function saveCheckpoint(dir: string, ck: Checkpoint, params: Record<string, tf.Variable>, optimizer: tf.AdamOptimizer): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const tensors: [string, Float32Array][] = Object.entries(params).map(([n, v]) => [n, v.dataSync() as Float32Array]);
  const opt = optimizer.getWeights().then((ws) => ws.map((w) => [w.name, w.tensor.dataSync() as Float32Array] as [string, Float32Array]));
  await opt.then((ow) => {
    const all = [...tensors.map(([n, v]) => [`p:${n}`, v] as const), ...ow.map(([n, v]) => [`o:${n}`, v] as const)];
    const index = all.map(([n, v]) => ({ n, len: v.length }));
    const bytes = Buffer.concat(all.map(([, v]) => Buffer.from(v.buffer, v.byteOffset, v.byteLength)));
    writeFileSync(path.join(dir, 'state.bin.tmp'), bytes);
    writeFileSync(path.join(dir, 'state.json.tmp'), JSON.stringify({ ...ck, index }));
    // Renames last, so a run killed mid-write leaves the previous checkpoint whole.
    renameSync(path.join(dir, 'state.bin.tmp'), path.join(dir, 'state.bin'));
    renameSync(path.join(dir, 'state.json.tmp'), path.join(dir, 'state.json'));
  });
}

async function loadCheckpoint(dir: string, key: string, params: Record<string, tf.Variable>, optimizer: tf.AdamOptimizer): Promise<Checkpoint | null> {
  const file = path.join(dir, 'state.json');
  if (!existsSync(file)) return null;
  const meta = JSON.parse(readFileSync(file, 'utf8')) as Checkpoint & { index: { n: string; len: number }[] };
  if (meta.key !== key) {
    log(`checkpoint in ${dir} is for other settings; starting afresh`);
    return null;
  }
  const buf = readFileSync(path.join(dir, 'state.bin'));
  const floats = new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  let at = 0;
  const opt: { name: string; tensor: tf.Tensor }[] = [];
  for (const { n, len } of meta.index) {
    const v = floats.subarray(at, at + len);
    at += len;
    if (n.startsWith('p:')) params[n.slice(2)]!.assign(tf.tensor(v, params[n.slice(2)]!.shape));
    else opt.push({ name: n.slice(2), tensor: tf.tensor(v) });
  }
  // Adam's moments come back with their shapes from the variables they belong to.
  const shaped = opt.map((o) => {
    const base = o.name.replace(/\/(m|v)$/, '');
    const p = params[base];
    return p ? { name: o.name, tensor: tf.reshape(o.tensor, p.shape) } : o;
  });
  await optimizer.setWeights(shaped);
  return meta;
}

/** Settings of a run; a member's seed is the run's seed plus its index. */
export function runSettings() {
  return {
    shape: DEFAULT_SHAPE,
    seed: env('TRAIN_SEED', 7),
    init: process.env.TRAIN_INIT ?? '',
    epochs: env('TRAIN_EPOCHS', 1),
    lr: env('TRAIN_LR', 5e-4),
    minutes: env('TRAIN_MINUTES', 0),
    /** TRAIN_FREEZE=prefix,...: parameters a continuation keeps as they start (a term left out of this run). */
    /** TRAIN_SCORE_BALANCE=1: score golds reweighted per source by their third of the rubric (balanceScoreGolds). */
    ...(process.env.TRAIN_SCORE_BALANCE === '1' ? { scoreBalance: true } : {}),
    /** TRAIN_PAIR_MARGIN=w: weight of the counterfactual-pair term (loop.ts `counterfactualPairs`); 0 leaves it out. */
    ...(Number(process.env.TRAIN_PAIR_MARGIN ?? 0) > 0 ? { pairMargin: Number(process.env.TRAIN_PAIR_MARGIN) } : {}),
    freeze: (process.env.TRAIN_FREEZE ?? '').split(',').filter((x) => x !== ''),
    data: { corpusWeight: env('TRAIN_CORPUS_WEIGHT', 3), sourceCap: env('TRAIN_SOURCE_CAP', 6000), maxCases: env('TRAIN_MAX_CASES', 0), seed: env('TRAIN_SEED', 7) },
  };
}

/** Cases, their encodings and examples by split (every process of a run builds the same). */
export async function loadExamples(settings: ReturnType<typeof runSettings>, workers: number) {
  const tokenizer = createTokenizer(await loadVocabulary());
  const all = loadTrainingCases(settings.data);
  const { corpus, converted, dir } = all;
  // The reader corrects the base heads' answers: only cases whose answers `npm run train:base`
  // has written are used.
  const base = readBaseLogits();
  const cases = all.cases.filter((c) => base.has(`${c.source}/${c.id}`));
  log(`${corpus} corpus cases, ${converted} converted (${dir}); ${cases.length} with the base heads' answers`);
  const store = new EncodingStore(cacheDir(), true);
  await store.ensure(readerTexts(cases), tokenizer, workers);
  const examples = buildReaderExamples(cases, store, tokenizer, base);
  const split = (name: string) => examples.filter((_, i) => cases[i]!.split === name);
  return { cases, corpus, converted, train: split('train'), calib: split('calib'), test: split('test') };
}

export const count = (xs: readonly ReaderExample[]) => xs.reduce((s, x) => s + x.items.length, 0);

/** Where member `i` of a run keeps its checkpoint and its final parameters. */
export function memberDir(key: string, i: number): string {
  return path.join(repoRoot(), '.cache', 'reader-members', `${key}-m${i}`);
}

/**
 * What the training examples say, as a digest: each case's id, the token ids of its state and of
 * every question text, and each gold and weight. Two data builds with the same number of
 * questions (a source rewritten under a per-source cap) give different keys, so a run on the new
 * data never resumes the old one's finished members (session 12's run H read run G's that way).
 */
export function trainingDigest(train: readonly ReaderExample[]): string {
  const hash = createHash('sha256');
  for (const ex of train) {
    hash.update(`${ex.id}|${ex.state.ids.join(',')}`);
    for (const item of ex.items) hash.update(`|${item.instructions.ids.join(',')}|${item.lines.map((l) => l.ids.join(',')).join(';')}|${item.gold}|${item.weight}`);
  }
  return hash.digest('hex').slice(0, 16);
}

export function runKey(settings: ReturnType<typeof runSettings>, train: readonly ReaderExample[]): string {
  const { shape, seed, epochs, lr, data, init, freeze, scoreBalance, pairMargin } = settings;
  const trainQuestions = count(train);
  const digest = trainingDigest(train);
  // A run from the initialisation keeps the key it had before TRAIN_INIT existed (and TRAIN_FREEZE).
  const from = init === '' ? {} : { init };
  // `weights` in TRAIN_INIT is whatever reader is shipped: the key names it by its file's hash.
  const shipped = init.split(/[,+]/).includes('weights') ? { shipped: shippedManifest().manifest.sha256 } : {};
  const frozen = { ...(freeze.length === 0 ? {} : { freeze }), ...(scoreBalance ? { scoreBalance } : {}), ...(pairMargin ? { pairMargin } : {}) };
  // The parameter table (since the field-pair term): a run of another architecture with the same
  // settings never resumes this one's checkpoints.
  const params = Object.keys(paramShapes(shape));
  return createHash('sha256').update(JSON.stringify({ shape, seed, epochs, lr, data, trainQuestions, digest, base: BASE_HEADS, ...from, ...shipped, ...frozen, params })).digest('hex').slice(0, 12);
}

/** What main.ts hands a member thread: its index, the run's key and its examples. */
export interface MemberData {
  member: number;
  key: string;
  train: ReaderExample[];
  evalSet: ReaderExample[];
}

/**
 * Where a score gold sits in its rubric: 0 low, 1 middle, 2 high, by its distance from the
 * rubric's middle (more than a sixth of the range either way), so a rubric and its mirror image
 * put mirrored golds in mirrored places.
 */
function third(gold: number, levels: number): number {
  const d = gold / Math.max(1, levels - 1) - 0.5;
  return d < -1 / 6 - 1e-9 ? 0 : d > 1 / 6 + 1e-9 ? 2 : 1;
}

/**
 * Score questions reweighted per source so that golds in the low, middle and high third of their
 * rubrics weigh alike (each factor at most 3): the converted rubrics put most golds in the middle
 * (CEFR 76%, EmoBank 52%), and a reader trained on them answers the middle level whatever the
 * state says (the plain questions' "How urgent is this?" for a server outage).
 */
export function balanceScoreGolds(examples: readonly ReaderExample[]): ReaderExample[] {
  const counts = new Map<string, number[]>();
  for (const ex of examples)
    for (const it of ex.items) {
      if (it.type !== 'score') continue;
      const c = counts.get(ex.source) ?? [0, 0, 0];
      c[third(it.gold, it.lines.length)]! += 1;
      counts.set(ex.source, c);
    }
  const factor = (source: string, it: ReaderItem) => {
    const c = counts.get(source)!;
    const present = c.filter((n) => n > 0).length;
    const total = c.reduce((a, b) => a + b, 0);
    return Math.min(3, total / (present * c[third(it.gold, it.lines.length)]!));
  };
  return examples.map((ex) => (ex.items.some((it) => it.type === 'score') ? { ...ex, items: ex.items.map((it) => (it.type === 'score' ? { ...it, weight: it.weight * factor(ex.source, it) } : it)) } : ex));
}

/** Trains one member of the run and writes its parameters (float32) to its folder. */
async function trainMember({ member, key, train: given, evalSet }: MemberData): Promise<void> {
  let train = given;
  await initBackend('wasm');
  await registerGradients();
  registerPlainMatMulGradient();
  const settings = runSettings();
  const { shape, epochs, lr, minutes } = settings;
  const seed = settings.seed + member;
  const dir = memberDir(key, member);
  log(`member ${member}: ${count(train)} training questions in ${train.length} cases; folder ${dir}`);
  const params = initParams(shape, seed);
  const optimizer = tf.train.adam(lr, 0.9, 0.98, 1e-8) as tf.AdamOptimizer;
  const resumed = await loadCheckpoint(dir, key, params, optimizer);
  if (resumed) log(`resumed at epoch ${resumed.epoch}, batch ${resumed.batch} (step ${resumed.step})`);
  else if (settings.init !== '') {
    const sources = initSources(settings.init, member, Number(process.env.TRAIN_MEMBERS ?? 2));
    const values = soupValues(sources.map((src) => initValues(src)));
    const from = sources.map((src) => `${src.run} member ${src.member}`).join(' + ');
    const fresh = continueFrom(params, values);
    log(`m${member}: started from ${from}${fresh.length > 0 ? `; not in that run, initialised: ${fresh.join(', ')}` : ''}`);
  }
  // TRAIN_REINIT=prefix,...: parameters to start afresh on resume (a readout that died).
  const reinit = (process.env.TRAIN_REINIT ?? '').split(',').filter((x) => x !== '');
  if (resumed && reinit.length > 0) {
    let s = seed + 17;
    for (const [name, v] of Object.entries(params)) {
      if (!reinit.some((r) => name.startsWith(r))) continue;
      const how = initOf(name, v.shape);
      v.assign(how === 'zeros' ? tf.zeros(v.shape) : how === 'ones' ? tf.ones(v.shape) : tf.randomNormal(v.shape, 0, how, 'float32', (s += 101)));
    }
    log(`m${member}: parameters ${reinit.join(', ')} started afresh`);
  }
  // TRAIN_DROP_NOUL=prefix,...: sources whose yes/no questions this member does not train on.
  // TRAIN_KEEP_NOUL=prefix,...: the only sources whose yes/no questions this member trains on.
  const dropNoul = (process.env.TRAIN_DROP_NOUL ?? '').split(',').filter((x) => x !== '');
  const keepNoul = (process.env.TRAIN_KEEP_NOUL ?? '').split(',').filter((x) => x !== '');
  const drops = (source: string) => dropNoul.some((d) => source.startsWith(d)) || (keepNoul.length > 0 && !keepNoul.some((k) => source.startsWith(k)));
  if (dropNoul.length > 0 || keepNoul.length > 0) {
    train = train.map((ex) => (drops(ex.source) ? { ...ex, items: ex.items.filter((it) => it.type !== 'noul') } : ex));
    log(`m${member}: yes/no questions left out of ${dropNoul.join(', ') || `all but ${keepNoul.join(', ')}`}; ${count(train)} training questions`);
  }
  if (settings.scoreBalance) {
    train = balanceScoreGolds(train);
    log(`m${member}: score questions weighted so that each source's low, middle and high golds weigh alike`);
  }
  const trained = Object.entries(params).filter(([name]) => !settings.freeze.some((f) => name.startsWith(f)));
  if (trained.length < Object.keys(params).length) log(`m${member}: ${Object.keys(params).length - trained.length} parameters frozen (${settings.freeze.join(', ')})`);
  const varList = trained.map(([, v]) => v);
  const batchesPerEpoch = makeBatches(train, rng(seed)).length;
  const totalSteps = batchesPerEpoch * epochs;
  const warmup = Math.min(300, Math.floor(totalSteps / 10));
  let step = resumed?.step ?? 0;
  const started = Date.now();
  const checkpointEvery = env('TRAIN_CHECKPOINT_STEPS', 400);
  let stop = false;
  for (let epoch = resumed?.epoch ?? 0; epoch < epochs && !stop; epoch++) {
    const batches = makeBatches(train, rng(seed * 1000 + epoch));
    if (settings.pairMargin) log(`m${member}: epoch ${epoch}: ${batches.reduce((n, b) => n + counterfactualPairs(b, b.flatMap((ex) => ex.items).filter((it) => it.type === 'noul')).length, 0)} counterfactual yes/no pairs, weight ${settings.pairMargin}`);
    const random = rng(seed * 7919 + epoch);
    let running = 0;
    let seen = 0;
    const first = resumed && epoch === resumed.epoch ? resumed.batch : 0;
    for (let bi = first; bi < batches.length; bi++) {
      // With a time budget the learning rate decays over whichever ends first, steps or time.
      const progress = Math.max(step / Math.max(1, totalSteps), minutes > 0 ? (Date.now() - started) / (minutes * 60_000) : 0);
      (optimizer as unknown as { learningRate: number }).learningRate = lr * Math.min(1, (step + 1) / Math.max(1, warmup)) * Math.max(0.05, 1 - progress);
      const loss = optimizer.minimize(() => batchLoss(params, shape, batches[bi]!, 0.05, random, settings.pairMargin ?? 0), true, varList);
      running = 0.98 * running + 0.02 * loss!.dataSync()[0]!;
      loss!.dispose();
      step++;
      seen++;
      if (step % 100 === 0) log(`m${member} epoch ${epoch} batch ${bi + 1}/${batches.length} step ${step}/${totalSteps} loss ${(running / (1 - 0.98 ** seen)).toFixed(4)} ${((Date.now() - started) / 1000).toFixed(0)} s`);
      if (step % checkpointEvery === 0) {
        await saveCheckpoint(dir, { key, epoch, batch: bi + 1, step }, params, optimizer);
        if (step % (checkpointEvery * 3) === 0) log(`m${member} calib ${formatMetrics(metrics(predict(params, shape, evalSet)))}`);
      }
      if (minutes > 0 && Date.now() - started > minutes * 60_000) {
        log(`m${member}: time budget of ${minutes} min reached at step ${step} of ${totalSteps}`);
        stop = true;
        break;
      }
    }
  }
  await saveCheckpoint(dir, { key, epoch: epochs, batch: 0, step }, params, optimizer);
  const values = Object.fromEntries(Object.entries(params).map(([n, v]) => [n, Array.from(v.dataSync())]));
  writeFileSync(path.join(dir, 'final.json'), JSON.stringify({ key, member, seed, steps: step, totalSteps, values }));
  log(`m${member}: wrote ${path.join(dir, 'final.json')}`);
}

if (!isMainThread && (workerData as { member?: unknown } | null)?.member !== undefined) await trainMember(workerData as MemberData);
