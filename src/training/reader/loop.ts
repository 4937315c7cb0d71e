/**
 * The reader's training step pieces: batches of whole cases bounded by the tensor sizes they
 * make (the cases of a counterfactual pair kept in the same batch so the step compares them),
 * the loss, and batched predictions for evaluation and temperatures.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { buildReaderBatch } from '../../heads/reader/batch.js';
import { groupLogSoftmax, readerForward, slotLogits, type ReaderParams } from '../../heads/reader/forward.js';
import type { ReaderShape } from '../../heads/reader/architecture.js';
import { shuffled } from '../data.js';
import type { ReaderExample, ReaderItem } from './examples.js';

/** Bounds of one batch: groups, padded state tokens x groups, padded text rows x groups. */
export const BATCH = { groups: 24, stateCells: 4096, rowCells: 4096, attention: 3_000_000 } as const;

const rowsOf = (ex: ReaderExample) => ex.items.reduce((s, q) => s + q.instructions.n + q.lines.reduce((a, l) => a + l.n, 0), 0);

/**
 * Seeded batches: pair groups stay together, a window of cases is sorted by state length (so
 * padding stays small), cut under the bounds, and the batches shuffled.
 */
export function makeBatches(examples: readonly ReaderExample[], random: () => number): ReaderExample[][] {
  const byPair = new Map<string, ReaderExample[]>();
  const units: ReaderExample[][] = [];
  for (const ex of examples) {
    if (ex.items.length === 0) continue;
    if (!ex.pair) units.push([ex]);
    else {
      const key = `${ex.source}\u0000${ex.pair}`;
      let g = byPair.get(key);
      if (!g) byPair.set(key, (g = []));
      if (g.length === 0) units.push(g);
      g.push(ex);
    }
  }
  const order = shuffled(units, random);
  const batches: ReaderExample[][] = [];
  const WINDOW = 2000;
  for (let w = 0; w < order.length; w += WINDOW) {
    const window = order.slice(w, w + WINDOW).sort((a, b) => Math.max(...a.map((e) => e.state.n)) - Math.max(...b.map((e) => e.state.n)));
    let current: ReaderExample[] = [];
    let maxM = 1;
    let maxR = 1;
    for (const unit of window) {
      const m = Math.max(maxM, ...unit.map((e) => e.state.n));
      const r = Math.max(maxR, ...unit.map(rowsOf));
      const g = current.length + unit.length;
      const over = g > BATCH.groups || g * m > BATCH.stateCells || g * r > BATCH.rowCells || g * r * (m + r) > BATCH.attention;
      if (current.length > 0 && over) {
        batches.push(current);
        current = [];
        maxM = 1;
        maxR = 1;
      }
      current.push(...unit);
      maxM = Math.max(maxM, ...unit.map((e) => e.state.n));
      maxR = Math.max(maxR, ...unit.map(rowsOf));
    }
    if (current.length > 0) batches.push(current);
  }
  return shuffled(batches, random);
}

/**
 * Weighted mean loss over a batch's questions. With `swap`, noul questions with criteria have
 * them swapped (and the gold flipped) at random: the logit is antisymmetric by construction,
 * so this only varies which side the evidence comes from.
 */
export function batchLoss(p: ReaderParams, shape: ReaderShape, batch: readonly ReaderExample[], smoothing: number, random: () => number, pairMargin = 0): tf.Scalar {
  const groups = batch.map((ex) => ({ state: ex.state, questions: ex.items.map((it) => it as ReaderItem) }));
  const flat = groups.flatMap((g) => g.questions);
  const swapped = flat.map((it) => (it.type === 'noul' && it.lines.some((l) => l.n > 0) && random() < 0.5 ? { ...it, lines: [it.lines[1]!, it.lines[0]!], gold: 1 - it.gold, ...(it.base ? { base: [it.base[1]!, it.base[0]!] } : {}) } : it));
  let at = 0;
  const b = buildReaderBatch(groups.map((g) => ({ state: g.state, questions: g.questions.map(() => swapped[at++]!) })));
  const out = readerForward(p, shape, b, true);
  const parts: tf.Scalar[] = [];
  const byType = (t: ReaderItem['type']) => swapped.filter((it) => it.type === t);
  const total = swapped.reduce((s, it) => s + it.weight, 0);
  if (out.noul) {
    const items = byType('noul');
    const y = items.map((it) => (it.gold === 0 ? 1 - smoothing / 2 : smoothing / 2));
    const w = tf.tensor1d(items.map((it) => it.weight));
    parts.push(tf.sum(tf.mul(w, tf.losses.sigmoidCrossEntropy(tf.tensor1d(y), out.noul, undefined, 0, tf.Reduction.NONE))) as tf.Scalar);
    const pairs = pairMargin > 0 ? counterfactualPairs(batch, items) : [];
    if (pairs.length > 0) {
      // softplus(-(z_yes - z_no)): the yes side's logit above the no side's, per pair.
      // As a product with a +1/-1 selection matrix: tf.gather's gradient needs UnsortedSegmentSum,
      // which the wasm backend lacks.
      const n = items.length;
      const select = new Float32Array(pairs.length * n);
      pairs.forEach((q, i) => ((select[i * n + q.yes] = 1), (select[i * n + q.no] = -1)));
      const gap = tf.reshape(tf.matMul(tf.tensor2d(select, [pairs.length, n]), tf.reshape(out.noul, [n, 1])), [pairs.length]);
      parts.push(tf.mul(pairMargin, tf.sum(tf.mul(tf.tensor1d(pairs.map((q) => q.weight)), tf.softplus(tf.neg(gap))))) as tf.Scalar);
    }
  }
  for (const type of ['choice', 'score'] as const) {
    const logits = out[type];
    const layout = b[type];
    if (!logits || !layout) continue;
    const items = byType(type);
    // Flat targets and weights, one per outcome line in the layout's order.
    const t: number[] = [];
    const w: number[] = [];
    items.forEach((it) => {
      const K = it.lines.length;
      for (let k = 0; k < K; k++) {
        t.push((k === it.gold ? 1 - smoothing : 0) + smoothing / K);
        w.push(it.weight);
      }
    });
    parts.push(tf.neg(tf.sum(tf.mul(tf.tensor1d(t), tf.mul(tf.tensor1d(w), groupLogSoftmax(logits, layout))))) as tf.Scalar);
  }
  // Every parameter in the graph, even those of a type this batch lacks: tfjs' Adam keeps its
  // moments by the position of each gradient in the list, which must not shift between steps.
  parts.push(tf.mul(tf.addN(Object.values(p).map((v) => tf.sum(v))), 0) as tf.Scalar);
  return tf.div(tf.addN(parts), Math.max(1e-9, total)) as tf.Scalar;
}

/**
 * The counterfactual pairs among a batch's yes/no questions without criteria: the same question
 * (same instructions' tokens) asked of two cases of one pair group (`source` and `pair`) with
 * opposite golds. Indices are positions in `noul` (the batch's noul items in input order, as the
 * forward pass lays them out); the weight is the lighter of the two items'.
 */
export function counterfactualPairs(batch: readonly ReaderExample[], noul: readonly ReaderItem[]): { yes: number; no: number; weight: number }[] {
  const caseOf = new Map<ReaderItem, ReaderExample>();
  for (const ex of batch) for (const it of ex.items) caseOf.set(it, ex);
  const groups = new Map<string, { index: number; item: ReaderItem; ex: ReaderExample }[]>();
  noul.forEach((item, index) => {
    const ex = caseOf.get(item);
    if (!ex?.pair || item.lines.some((l) => l.n > 0)) return;
    const key = `${ex.source}\u0000${ex.pair}\u0000${item.instructions.ids.join(',')}`;
    const g = groups.get(key) ?? [];
    g.push({ index, item, ex });
    groups.set(key, g);
  });
  const out: { yes: number; no: number; weight: number }[] = [];
  for (const g of groups.values())
    for (const a of g)
      for (const b of g)
        if (a.ex !== b.ex && a.item.gold === 0 && b.item.gold === 1) out.push({ yes: a.index, no: b.index, weight: Math.min(a.item.weight, b.item.weight) });
  return out;
}

export interface Prediction {
  item: ReaderItem;
  /** noul [yes logit, 0]; choice and score one bounded logit per outcome. */
  logits: number[];
}

/** Raw logits of every question of these examples. */
export function predict(p: ReaderParams, shape: ReaderShape, examples: readonly ReaderExample[]): Prediction[] {
  const out: Prediction[] = [];
  for (const batch of makeBatches(examples, () => 0.5)) {
    tf.tidy(() => {
      const b = buildReaderBatch(batch.map((ex) => ({ state: ex.state, questions: ex.items })));
      const res = readerForward(p, shape, b);
      const noul = res.noul?.dataSync();
      const choice = res.choice && b.choice ? slotLogits(res.choice, b.choice).dataSync() : undefined;
      const score = res.score && b.score ? slotLogits(res.score, b.score).dataSync() : undefined;
      const items = batch.flatMap((ex) => ex.items);
      b.order.forEach((o, i) => {
        const item = items[i]!;
        if (o.type === 'noul') out.push({ item, logits: [noul![o.index]!, 0] });
        else {
          const values = o.type === 'choice' ? choice! : score!;
          const width = (o.type === 'choice' ? b.choice! : b.score!).width;
          out.push({ item, logits: Array.from(values.subarray(o.index * width, o.index * width + o.outcomes)) });
        }
      });
    });
  }
  return out;
}
