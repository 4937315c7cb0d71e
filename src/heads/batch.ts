/**
 * Dense tensors of a batch of questions for the trained heads' stage 2 (late.ts `forward`):
 * every text's token rows stacked, membership matrices that sum each text's rows and group
 * each question's outcome lines, and the per-question pair inputs (fields.ts). Built in
 * JavaScript, no parameters; training and serving build the same batch.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { HIDDEN, NFIXED, PER_TOKEN, type Aligned } from './late.js';

/** One question in a batch: its type, its instructions and outcome lines, aligned to its state. */
export interface BatchQuestion {
  type: 'noul' | 'choice' | 'score';
  instructions: Aligned;
  /** noul: [true criterion, false criterion] (possibly empty); choice/score: one per outcome. */
  lines: readonly Aligned[];
  /** Cosine between the two state fields the question compares (fields.ts); absent or null: none. Read by choice and score. */
  pair?: number | null;
}

/** Per outcome line (choice, score): 1 where the question compares two fields, and their cosine (else 0). */
export interface PairInputs {
  has: tf.Tensor2D; // [N, 1]
  sim: tf.Tensor2D; // [N, 1]
}

/** Dense tensors of a batch (built in JS, no parameters). */
export interface Batch {
  tokens: tf.Tensor2D; // [F, H]
  aligned: tf.Tensor2D; // [F, H]
  bestSoft: tf.Tensor2D; // [F, PER_TOKEN]
  assign: tf.Tensor2D; // [M, F] text membership
  fixed: tf.Tensor2D; // [M, NFIXED]
  pooled: tf.Tensor2D; // [M, H]
  noul: { count: number; instr: tf.Tensor2D; critT: tf.Tensor2D; critF: tf.Tensor2D; has: tf.Tensor1D } | null;
  choice: { count: number; lines: tf.Tensor2D; group: tf.Tensor2D; mean: tf.Tensor2D; sizes: number[]; pair: PairInputs } | null;
  score: { count: number; lines: tf.Tensor2D; group: tf.Tensor2D; mean: tf.Tensor2D; neighbours: tf.Tensor2D; pos: tf.Tensor2D; sizes: number[]; pair: PairInputs } | null;
}

/** Builds the batch tensors for a list of questions (call inside tf.tidy or dispose). */
export function buildBatch(questions: readonly BatchQuestion[]): Batch {
  const texts: Aligned[] = [];
  const add = (a: Aligned) => texts.push(a) - 1;
  const noulRows: [number, number, number, number][] = [];
  const choiceRows: number[][] = [];
  const scoreRows: number[][] = [];
  const pairs = { choice: [] as (number | null)[], score: [] as (number | null)[] };
  for (const q of questions) {
    if (q.type === 'noul') {
      const has = q.lines.some((l) => l.n > 0) ? 1 : 0;
      noulRows.push([add(q.instructions), add(q.lines[0]!), add(q.lines[1]!), has]);
    } else {
      (q.type === 'choice' ? choiceRows : scoreRows).push(q.lines.map(add));
      for (let k = 0; k < q.lines.length; k++) pairs[q.type].push(q.pair ?? null);
    }
  }
  const pairInputs = (values: readonly (number | null)[]): PairInputs => ({
    has: tf.tensor2d(values.map((v) => (v === null ? 0 : 1)), [values.length, 1]),
    sim: tf.tensor2d(values.map((v) => v ?? 0), [values.length, 1]),
  });
  const M = texts.length;
  const F = Math.max(1, texts.reduce((s, t) => s + t.n, 0));
  const tok = new Float32Array(F * HIDDEN);
  const al = new Float32Array(F * HIDDEN);
  const bs = new Float32Array(F * PER_TOKEN);
  const assign = new Float32Array(M * F);
  const fixed = new Float32Array(M * NFIXED);
  const pooled = new Float32Array(M * HIDDEN);
  let row = 0;
  texts.forEach((t, m) => {
    tok.set(t.tokens, row * HIDDEN);
    al.set(t.aligned, row * HIDDEN);
    for (let i = 0; i < t.n; i++) {
      bs[(row + i) * PER_TOKEN] = t.best[i]!;
      bs[(row + i) * PER_TOKEN + 1] = t.soft[i]!;
      bs[(row + i) * PER_TOKEN + 2] = t.exact[i]!;
      bs[(row + i) * PER_TOKEN + 3] = t.negAtt[i]!;
      bs[(row + i) * PER_TOKEN + 4] = Math.abs(t.negAtt[i]! - t.selfNeg[i]!);
      assign[m * F + row + i] = 1;
    }
    row += t.n;
    fixed.set(t.fixed, m * NFIXED);
    pooled.set(t.pooled, m * HIDDEN);
  });
  const select = (rows: number[]) => {
    const s = new Float32Array(rows.length * M);
    rows.forEach((r, i) => (s[i * M + r] = 1));
    return tf.tensor2d(s, [rows.length, M]);
  };
  const groups = (rowsPerQ: number[][]) => {
    const flat = rowsPerQ.flat();
    const L = flat.length;
    const G = rowsPerQ.length;
    const group = new Float32Array(G * L);
    const mean = new Float32Array(L * L);
    const nb = new Float32Array(L * L);
    const pos = new Float32Array(L * 2);
    let start = 0;
    rowsPerQ.forEach((rows, g) => {
      const K = rows.length;
      for (let k = 0; k < K; k++) {
        group[g * L + start + k] = 1;
        for (let j = 0; j < K; j++) mean[(start + k) * L + start + j] = 1 / K;
        const ns = [k - 1, k + 1].filter((j) => j >= 0 && j < K);
        for (const j of ns) nb[(start + k) * L + start + j] = 1 / ns.length;
        const x = K > 1 ? (2 * k) / (K - 1) - 1 : 0;
        pos[(start + k) * 2] = Math.abs(x);
        pos[(start + k) * 2 + 1] = x * x;
      }
      start += K;
    });
    return {
      lines: select(flat),
      group: tf.tensor2d(group, [G, L]),
      mean: tf.tensor2d(mean, [L, L]),
      neighbours: tf.tensor2d(nb, [L, L]),
      pos: tf.tensor2d(pos, [L, 2]),
      sizes: rowsPerQ.map((r) => r.length),
      count: L,
    };
  };
  const c = choiceRows.length ? groups(choiceRows) : null;
  const s = scoreRows.length ? groups(scoreRows) : null;
  return {
    tokens: tf.tensor2d(tok, [F, HIDDEN]),
    aligned: tf.tensor2d(al, [F, HIDDEN]),
    bestSoft: tf.tensor2d(bs, [F, PER_TOKEN]),
    assign: tf.tensor2d(assign, [M, F]),
    fixed: tf.tensor2d(fixed, [M, NFIXED]),
    pooled: tf.tensor2d(pooled, [M, HIDDEN]),
    noul: noulRows.length
      ? {
          count: noulRows.length,
          instr: select(noulRows.map((r) => r[0])),
          critT: select(noulRows.map((r) => r[1])),
          critF: select(noulRows.map((r) => r[2])),
          has: tf.tensor1d(noulRows.map((r) => r[3])),
        }
      : null,
    choice: c ? { count: c.count, lines: c.lines, group: c.group, mean: c.mean, sizes: c.sizes, pair: pairInputs(pairs.choice) } : null,
    score: s ? { ...s, pair: pairInputs(pairs.score) } : null,
  };
}
