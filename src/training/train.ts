/**
 * `npm run train`: trains the late-interaction heads (src/heads/late.ts) on the training corpus
 * with the encoder frozen, fits temperatures per type and option-count bucket on the held-out
 * calibration split, reports the held-out test split, and writes `weights/heads-<version>.bin`
 * with its manifest (data file hashes, seed, settings, metrics).
 *
 * Steps: (1) encode every text once into `.cache/encodings` (two processes, reused across
 * runs); (2) train with Adam, seeded, cases in seeded order, augmentation by swapping noul
 * criteria (choice is permutation invariant and score reversal-equivariant by construction);
 * (3) temperatures; (4) write. The calibration split is halved by case (data.ts calibHalf):
 * one half picks each member's best epoch, the other fits temperatures and the zero-shot mix.
 *
 * Environment: TRAIN_EPOCHS (default 6), TRAIN_MEMBERS (ensemble size, default 3), TRAIN_SEED (default 7), TRAIN_WORKERS (2),
 * EVALMODEL_DATA, EVALMODEL_CACHE, TRAIN_OUT (weights folder).
 * @module
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { flattenWhitespace, renderQuestion, renderState } from '../canonical/index.js';
import { createTokenizer, loadVocabulary, type Tokenizer } from '../tokenizer/index.js';
import { initBackend } from '../encoder/backend.js';
import { itemScoreOf } from './score.js';
import { buildBatch, type BatchQuestion } from '../heads/batch.js';
import { alignTexts, boundLogits, BUCKETS, bucketOf, forward, groupLogSoftmax, PARAM_SHAPES, type Aligned, type Params, type TextRep } from '../heads/late.js';
import { calibrated, type HeadsManifest } from '../heads/trained.js';
import { questionTexts } from '../heads/texts.js';
import { calibHalf, dataDir, fileHash, goldIndex, loadCases, repoRoot, rng, shuffled, splitOf, SPLIT, type Case } from './data.js';
import type { EncodingStore } from './encode-cache.js';
import { prepare } from './prepare.js';
import { registerGradients } from './gradients.js';
import { mixInto } from './mix.js';
import { pairCases } from './pairs.js';
import { pairSimilarities } from '../heads/fields.js';

export interface Item {
  type: 'noul' | 'choice' | 'score';
  instr: Aligned;
  lines: Aligned[];
  gold: number;
  hasCrit: boolean;
  /** Rendered outcome texts and the state's text (for the zero-shot term, see mix.ts). */
  outcomes: string[];
  stateText: string;
  /** Cosine between the two state fields the question compares (heads/fields.ts), or null. */
  pair: number | null;
}

export interface Example {
  id: string;
  items: Item[];
}

/** Renders, looks up the cached encodings and aligns every question of every case to its state. */
export function buildExamples(cases: readonly Case[], store: EncodingStore, tokenizer: Tokenizer): Example[] {
  const tokenize = (text: string) => tokenizer.encode(flattenWhitespace(text));
  const rep = (text: string): TextRep => {
    const e = store.get(text);
    const ids = text === '' ? [] : tokenize(text);
    if (ids.length !== e.n) throw new Error(`token count mismatch for ${JSON.stringify(text.slice(0, 60))}`);
    return { ...e, ids };
  };
  return cases.map((c) => {
    const items: Item[] = [];
    const stateText = renderState(c.state);
    const state = rep(stateText);
    const goldIds = Object.keys(c.gold);
    const similarities = pairSimilarities(goldIds.map((id) => c.questions[id]!), c.state, state.ids!, state.tokens, tokenize);
    const pairs = new Map(goldIds.map((id, i) => [id, similarities[i]!]));
    for (const [qid, g] of Object.entries(c.gold)) {
      const q = c.questions[qid]!;
      const gold = goldIndex(q, g);
      const rendered = renderQuestion(q);
      if (gold < 0 || gold >= rendered.keys.length) continue;
      const t = questionTexts(rendered);
      const [instr, ...lines] = alignTexts(state, [rep(t.instructions), ...t.lines.map((l) => rep(l))]);
      const pair = pairs.get(qid)!;
      items.push({ type: rendered.type, instr: instr!, lines, gold, hasCrit: rendered.type === 'noul' && lines.some((l) => l.n > 0), outcomes: rendered.outcomes, stateText, pair });
    }
    return { id: c.id, items };
  });
}

/** Seeded initial parameters. */
export function initParams(seed: number, prefix = ''): Record<string, tf.Variable> {
  const out: Record<string, tf.Variable> = {};
  let s = seed;
  for (const [name, shape] of Object.entries(PARAM_SHAPES)) {
    s += 101;
    let init: tf.Tensor;
    if (shape.length === 1) init = name === 'nGate' ? tf.zeros(shape) : tf.zeros(shape);
    else if (name === 'importance') init = tf.zeros(shape);
    else if (name === 'nCrit') init = tf.fill(shape, 1);
    else init = tf.randomNormal(shape, 0, Math.sqrt(1 / shape[0]!), 'float32', s);
    out[name] = tf.variable(init, true, `${prefix}${name}`);
  }
  return out;
}

/**
 * Mean loss over the questions of a batch of cases, with augmentation when `random` is given;
 * `pairs` false leaves out every question's pair input (the first training stage).
 */
function batchLoss(p: Params, examples: readonly Example[], random: (() => number) | null, smoothing: number, pairs = true): tf.Scalar {
  const items = examples.flatMap((ex) => ex.items);
  const questions: BatchQuestion[] = [];
  const noulY: number[] = [];
  const choiceT: number[] = [];
  const scoreT: number[] = [];
  const target = (it: Item) => {
    const K = it.lines.length;
    return Array.from({ length: K }, (_, k) => (k === it.gold ? 1 - smoothing : 0) + smoothing / K);
  };
  for (const it of items) {
    if (it.type === 'noul') {
      const swap = random !== null && it.hasCrit && random() < 0.5;
      questions.push({ type: 'noul', instructions: it.instr, lines: swap ? [it.lines[1]!, it.lines[0]!] : it.lines });
      const yes = (it.gold === 0) !== swap ? 1 : 0;
      noulY.push(yes * (1 - smoothing) + smoothing / 2);
    } else {
      questions.push({ type: it.type, instructions: it.instr, lines: it.lines, pair: pairs ? it.pair : null });
      (it.type === 'choice' ? choiceT : scoreT).push(...target(it));
    }
  }
  const b = buildBatch(questions);
  const out = forward(p, b);
  const parts: tf.Scalar[] = [];
  // Weight decay on the 512-wide projections, scaled to the batch (they see every token).
  const decay = Number(process.env.TRAIN_DECAY ?? 3e-4);
  if (decay > 0) {
    // Not the pair directions: they act through one coefficient per question and only the
    // generated pair cases (a few percent of a batch) train them, which the decay would swamp.
    const big = Object.entries(PARAM_SHAPES)
      .filter(([name, shape]) => shape[0] === 512 && !name.endsWith('Pair'))
      .map(([name]) => tf.sum(tf.square(p[name]!)));
    parts.push(tf.mul(tf.addN(big), decay * items.length) as tf.Scalar);
  }
  if (out.noul) parts.push(tf.sum(tf.losses.sigmoidCrossEntropy(tf.tensor1d(noulY), out.noul, undefined, 0, tf.Reduction.NONE)) as tf.Scalar);
  if (out.choice) parts.push(tf.neg(tf.sum(tf.mul(tf.tensor1d(choiceT), groupLogSoftmax(out.choice, b.choice!.group)))) as tf.Scalar);
  if (out.score) parts.push(tf.neg(tf.sum(tf.mul(tf.tensor1d(scoreT), groupLogSoftmax(out.score, b.score!.group)))) as tf.Scalar);
  return tf.div(tf.addN(parts), Math.max(1, items.length)) as tf.Scalar;
}

/** Raw logits of every item (for evaluation and temperature fitting), batched; `pairs` as in batchLoss. */
export function predictAll(p: Params, examples: readonly Example[], pairs = true): { item: Item; logits: number[] }[] {
  const out: { item: Item; logits: number[] }[] = [];
  for (let i = 0; i < examples.length; i += 16) {
    const items = examples.slice(i, i + 16).flatMap((ex) => ex.items);
    tf.tidy(() => {
      const b = buildBatch(items.map((it) => ({ type: it.type, instructions: it.instr, lines: it.lines, pair: pairs ? it.pair : null })));
      const res = forward(p, b);
      const nv = res.noul ? Array.from(res.noul.dataSync()) : [];
      const cv = res.choice ? Array.from(res.choice.dataSync()) : [];
      const sv = res.score ? Array.from(res.score.dataSync()) : [];
      let n = 0;
      let c = 0;
      let s = 0;
      for (const it of items) {
        if (it.type === 'noul') out.push({ item: it, logits: [nv[n++]!, 0] });
        else if (it.type === 'choice') {
          out.push({ item: it, logits: boundLogits(cv.slice(c, c + it.lines.length)) });
          c += it.lines.length;
        } else {
          out.push({ item: it, logits: boundLogits(sv.slice(s, s + it.lines.length)) });
          s += it.lines.length;
        }
      }
    });
  }
  return out;
}

/** Ensemble predictions: member logits averaged. */
export function predictEnsemble(members: readonly Params[], examples: readonly Example[]): { item: Item; logits: number[] }[] {
  const all = members.map((p) => predictAll(p, examples));
  return all[0]!.map((x, i) => ({ item: x.item, logits: x.logits.map((_, k) => all.reduce((s, a) => s + a[i]!.logits[k]!, 0) / all.length) }));
}

function nll(logits: readonly number[], gold: number, t: number): number {
  const z = logits.map((l) => l / t);
  const m = Math.max(...z);
  const lse = m + Math.log(z.reduce((s, x) => s + Math.exp(x - m), 0));
  return lse - z[gold]!;
}

/** Temperature per bucket minimising NLL on the given predictions (grid in log space). */
export function fitTemperatures(preds: readonly { item: Item; logits: number[] }[]): Record<string, number> {
  const temps: Record<string, number> = {};
  const grid = Array.from({ length: 61 }, (_, i) => Math.exp(Math.log(0.1) + (i / 60) * (Math.log(10) - Math.log(0.1))));
  for (const b of BUCKETS) {
    let group = preds.filter((x) => bucketOf(x.item.type, x.logits.length) === b);
    // Too few to fit: pool with the question type.
    if (group.length < 30) group = preds.filter((x) => x.item.type === b.split(':')[0]);
    let best = 1;
    let bestLoss = Infinity;
    for (const t of grid) {
      const loss = group.reduce((s, x) => s + nll(x.logits, x.item.gold, t), 0);
      if (loss < bestLoss) {
        bestLoss = loss;
        best = t;
      }
    }
    temps[b] = Number(best.toFixed(4));
  }
  return temps;
}

/** Mean NLL of calibrated predictions. */
export function meanNll(preds: readonly { item: Item; logits: number[] }[], temps: Record<string, number>): number {
  let loss = 0;
  for (const x of preds) loss += -Math.log(Math.max(1e-12, calibrated({ temperatures: temps }, x.item.type, x.logits)[x.item.gold]!));
  return loss / Math.max(1, preds.length);
}

/** Accuracy (JevBench rule) and NLL per type and pooled. */
export function metrics(preds: readonly { item: Item; logits: number[] }[], temps: Record<string, number>): Record<string, { n: number; accuracy: number; nll: number }> {
  const out: Record<string, { n: number; accuracy: number; nll: number }> = {};
  for (const type of ['noul', 'choice', 'score', 'pooled']) {
    const group = preds.filter((x) => type === 'pooled' || x.item.type === type);
    let acc = 0;
    let loss = 0;
    for (const x of group) {
      const p = calibrated({ temperatures: temps }, x.item.type, x.logits);
      acc += itemScoreOf(p, x.item.gold);
      loss += -Math.log(Math.max(1e-12, p[x.item.gold]!));
    }
    out[type] = { n: group.length, accuracy: group.length ? acc / group.length : NaN, nll: group.length ? loss / group.length : NaN };
  }
  return out;
}

function fmt(m: Record<string, { n: number; accuracy: number; nll: number }>): string {
  return Object.entries(m)
    .map(([k, v]) => `${k} ${v.accuracy.toFixed(3)} (nll ${v.nll.toFixed(3)}, n ${v.n})`)
    .join('; ');
}

/** The parameters of the pair terms (late.ts), trained in the second stage. */
const PAIR_PARAMS = Object.keys(PARAM_SHAPES).filter((name) => name.includes('Pair'));
const PAIR_EPOCHS = 6;

async function main(): Promise<void> {
  const started = Date.now();
  const seed = Number(process.env.TRAIN_SEED ?? 7);
  const epochs = Number(process.env.TRAIN_EPOCHS ?? 6);
  const batchCases = 16;
  const lr = Number(process.env.TRAIN_LR ?? 2e-3);
  const smoothing = 0.03;
  const trainDir = path.join(dataDir(), 'train');
  const cases = loadCases(trainDir);
  // Held-out splits also need their full outcome texts, for the zero-shot term (mix.ts).
  const heldOutCases = cases.filter((c) => splitOf(c) !== 'train');
  // Field-comparison cases made from training-split texts only (pairs.ts); they train only.
  const pairCount = Number(process.env.TRAIN_PAIRS ?? 600);
  const generated = pairCases(cases.filter((c) => splitOf(c) === 'train'), pairCount, seed);
  const store = await prepare([...cases, ...generated], Number(process.env.TRAIN_WORKERS ?? 2), heldOutCases);
  const log = (msg: string) => process.stderr.write(`[train ${((Date.now() - started) / 1000).toFixed(0)}s] ${msg}\n`);
  log(`encodings ready; ${cases.length} cases`);
  await initBackend(process.env.EVALMODEL_TRAIN_BACKEND === 'cpu' ? 'cpu' : 'wasm');
  await registerGradients();

  const bySplit = { train: [] as Case[], calib: [] as Case[], test: [] as Case[] };
  for (const c of cases) bySplit[splitOf(c)].push(c);
  const tokenizer = createTokenizer(await loadVocabulary());
  const train = buildExamples(bySplit.train, store, tokenizer);
  // The second stage's data: the generated cases and the corpus's own field comparisons.
  const pairTrain = [...buildExamples(generated, store, tokenizer), ...train.map((ex) => ({ ...ex, items: ex.items.filter((it) => it.pair !== null) }))].filter((ex) => ex.items.length > 0);
  const stop = buildExamples(bySplit.calib.filter((c) => calibHalf(c) === 'stop'), store, tokenizer);
  const calib = buildExamples(bySplit.calib.filter((c) => calibHalf(c) === 'fit'), store, tokenizer);
  const test = buildExamples(bySplit.test, store, tokenizer);
  log(`split: train ${train.length}, calib ${stop.length} (epochs) + ${calib.length} (temperatures), test ${test.length} cases`);

  // An ensemble of independently seeded members; their logits are averaged.
  const members = Number(process.env.TRAIN_MEMBERS ?? 3);
  const trained: Record<string, tf.Variable>[] = [];
  const bestEpochs: number[] = [];
  for (let member = 0; member < members; member++) {
    const memberSeed = seed + 1000 * member;
    const params = initParams(memberSeed, `m${member}.`);
    const optimizer = tf.train.adam(lr);
    const random = rng(memberSeed);
    let best = { epoch: -1, loss: Infinity, values: new Map<string, Float32Array>() };
    for (let epoch = 0; epoch < epochs; epoch++) {
      const order = shuffled(train, random);
      let total = 0;
      let count = 0;
      for (let b = 0; b < order.length; b += batchCases) {
        const batch = order.slice(b, b + batchCases);
        const n = batch.reduce((s, ex) => s + ex.items.length, 0);
        if (n === 0) continue;
        const cost = optimizer.minimize(() => batchLoss(params, batch, random, smoothing, false), true);
        total += cost!.dataSync()[0]! * n;
        count += n;
        cost!.dispose();
      }
      const m = metrics(predictAll(params, stop, false), Object.fromEntries(BUCKETS.map((k) => [k, 1])));
      log(`member ${member + 1}/${members} epoch ${epoch + 1}/${epochs}: train loss ${(total / count).toFixed(4)}; calib (epochs half) ${fmt(m)}`);
      if (m.pooled!.nll < best.loss) {
        best = { epoch, loss: m.pooled!.nll, values: new Map(Object.entries(params).map(([k, v]) => [k, (v.dataSync() as Float32Array).slice()])) };
      }
    }
    log(`member ${member + 1}: best epoch ${best.epoch + 1}`);
    for (const [k, v] of Object.entries(params)) v.assign(tf.tensor(best.values.get(k)!, v.shape));
    optimizer.dispose();
    // Stage 2: only the pair terms learn, everything else frozen, so that a question comparing
    // no state fields is answered exactly as by the first stage alone.
    const pairVars = PAIR_PARAMS.map((name) => params[name]!);
    const pairOptimizer = tf.train.adam(lr);
    const pairRandom = rng(memberSeed + 1);
    for (let epoch = 0; epoch < PAIR_EPOCHS; epoch++) {
      const order = shuffled(pairTrain, pairRandom);
      for (let b = 0; b < order.length; b += batchCases) {
        pairOptimizer.minimize(() => batchLoss(params, order.slice(b, b + batchCases), null, smoothing), false, pairVars);
      }
    }
    pairOptimizer.dispose();
    log(`member ${member + 1}: pair terms trained on ${pairTrain.length} cases, ${PAIR_EPOCHS} epochs`);
    trained.push(params);
    bestEpochs.push(best.epoch + 1);
  }

  const calibPreds = predictEnsemble(trained, calib);
  const temperatures = fitTemperatures(calibPreds);
  const testPreds = predictEnsemble(trained, test);
  const testMetrics = metrics(testPreds, temperatures);
  const calibMetrics = metrics(calibPreds, temperatures);
  log(`temperatures ${JSON.stringify(temperatures)}`);
  log(`held-out test: ${fmt(testMetrics)}`);

  // Write the weights: every member's parameters as float32, in PARAM_SHAPES order.
  const outDir = process.env.TRAIN_OUT ?? path.join(repoRoot(), 'weights');
  mkdirSync(outDir, { recursive: true });
  const version = process.env.TRAIN_VERSION ?? '1.13.0';
  const names = Object.keys(PARAM_SHAPES);
  const perMember = names.reduce((s, n) => s + PARAM_SHAPES[n]!.reduce((a, b) => a * b, 1), 0);
  const flat = new Float32Array(perMember * members);
  const entries: HeadsManifest['params'] = [];
  let offset = 0;
  trained.forEach((params, member) => {
    for (const name of names) {
      const values = params[name]!.dataSync() as Float32Array;
      flat.set(values, offset);
      entries.push({ name: `m${member}.${name}`, shape: PARAM_SHAPES[name]!, offset });
      offset += values.length;
    }
  });
  const bytes = new Uint8Array(flat.buffer);
  const weightsFile = `heads-${version}.bin`;
  writeFileSync(path.join(outDir, weightsFile), bytes);
  const files = readdirSync(trainDir).filter((f) => f.endsWith('.jsonl')).sort();
  const manifest: HeadsManifest = {
    format: 'evalmodel-heads/1',
    weights: weightsFile,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    members,
    params: entries,
    temperatures,
    model: `evalmodel-${version}`,
    method: 'late interaction over frozen USE-lite token states (src/heads/late.ts)',
    seed,
    settings: { epochs, bestEpochs, batchCases, lr, smoothing, weightDecay: Number(process.env.TRAIN_DECAY ?? 3e-4), optimizer: 'adam', backend: tf.getBackend(), split: SPLIT },
    data: files.map((f) => ({ file: `train/${f}`, sha256: fileHash(path.join(trainDir, f)) })),
    generated: { pairCases: generated.length, seed, method: 'src/training/pairs.ts', stage2: { params: PAIR_PARAMS, epochs: PAIR_EPOCHS, cases: pairTrain.length } },
    counts: { train: train.length, calibEpochs: stop.length, calibTemperatures: calib.length, test: test.length },
    heldOut: { test: testMetrics, calib: calibMetrics },
    trainSeconds: Math.round((Date.now() - started) / 1000),
  };
  const mixed = mixInto(manifest, trained, calib, test, store, { predictEnsemble, fitTemperatures, metrics, meanNll });
  log(`zero-shot mix ${JSON.stringify(mixed.mix)}; temperatures ${JSON.stringify(mixed.temperatures)}`);
  log(`held-out test with mix: ${fmt((mixed.heldOut as { testWithMix: Parameters<typeof fmt>[0] }).testWithMix)}`);
  writeFileSync(path.join(outDir, `heads-${version}.json`), JSON.stringify(mixed, null, 2) + '\n');
  log(`wrote ${path.join(outDir, weightsFile)} (${bytes.byteLength} bytes) and its manifest`);
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) {
  await main();
}
