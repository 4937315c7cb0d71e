/**
 * Late-interaction heads: the question's own tokens read the state's cached token states.
 *
 * For every text a question brings (its instructions, and one line per outcome: a choice
 * option, a score level, a noul criterion) the match block compares each of the text's token
 * states with every state token, both as raw cosines and through a learned projection, and
 * returns
 * - six match features: importance-weighted and plain means of each token's best match (raw
 *   and projected), the best single raw match, and the pooled cosine;
 * - a readout: a learned value projection of the state, soft-aligned to each text token and
 *   pooled with learned token importances (cross-attention of the text over the state).
 * Small per-type MLPs turn these into logits: one per outcome, softmaxed across a question's
 * outcomes for choice and score (the same parameters for every option, so any number of
 * options works and the answer does not depend on option order), and a yes/no readout of the
 * instructions' interaction with the state for noul, plus an antisymmetric term for its
 * criteria. Score features are built symmetrically in the level order, so reversing a rubric
 * reverses the distribution. Temperatures per type and option-count bucket follow.
 *
 * The same code runs in training (with tf.Variables) and in the engine (with constants).
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';

export const HIDDEN = 512;
/** Width of the learned projection used for token matching. */
export const PROJ = 64;
/** Width of the value readout. */
export const VAL = 16;
/** Width of the MLP hidden layers. */
export const MLP = 32;
/** Number of match features per text. */
export const NF = 6;
/** Sharpness of the soft max and of the soft alignment over state tokens. */
const BETA = 20;

/** Parameter names and shapes. */
export const PARAM_SHAPES: Record<string, number[]> = {
  proj: [HIDDEN, PROJ],
  importance: [HIDDEN, 1],
  value: [HIDDEN, VAL],
  // noul
  nQuery: [HIDDEN, VAL],
  nPrior: [HIDDEN, 4],
  n1: [NF + VAL + 4, MLP],
  n1b: [MLP],
  n2: [MLP, 1],
  n2b: [1],
  nCrit: [NF, 1],
  nGate: [1],
  // choice
  cLine: [HIDDEN, VAL],
  cPrior: [HIDDEN, 4],
  c1: [2 * NF + VAL + 4, MLP],
  c1b: [MLP],
  c2: [MLP, 1],
  // score
  sLine: [HIDDEN, VAL],
  s1: [3 * NF + VAL + 2, MLP],
  s1b: [MLP],
  s2: [MLP, 1],
};

export type Params = Record<string, tf.Tensor>;

/** A text's encoding as the heads read it. */
export interface TextRep {
  /** Per-token states, [n, 512] row-major. */
  tokens: Float32Array;
  n: number;
  pooled: Float32Array;
}

/** The state, prepared once per (state, parameters): normalised, projected, value-projected. */
export interface PreparedState {
  norm: tf.Tensor2D; // [T, H]
  projT: tf.Tensor2D; // [P, T]
  values: tf.Tensor2D; // [T, V]
  pooled: tf.Tensor1D; // [H]
}

function rowNormalise(x: tf.Tensor2D): tf.Tensor2D {
  return tf.mul(x, tf.rsqrt(tf.maximum(tf.sum(tf.square(x), 1, true), 1e-12)));
}

/** Prepares a state's token states (at least one row: an empty state is one zero token). */
export function prepareState(p: Params, state: TextRep): PreparedState {
  return tf.tidy(() => {
    const n = Math.max(1, state.n);
    const raw = state.n > 0 ? tf.tensor2d(state.tokens.subarray(0, state.n * HIDDEN), [n, HIDDEN]) : tf.zeros([1, HIDDEN]) as tf.Tensor2D;
    const norm = rowNormalise(raw);
    const proj = rowNormalise(tf.matMul(raw, p.proj as tf.Tensor2D));
    return {
      norm,
      projT: tf.transpose(proj) as tf.Tensor2D,
      values: tf.matMul(raw, p.value as tf.Tensor2D) as tf.Tensor2D,
      pooled: tf.tensor1d(state.pooled),
    };
  });
}

/** Packs texts into a padded [K, N, H] tensor with its mask [K, N] and pooled vectors [K, H]. */
export function packTexts(texts: readonly TextRep[]): { tokens: tf.Tensor3D; mask: tf.Tensor2D; pooled: tf.Tensor2D } {
  const K = texts.length;
  const N = Math.max(1, ...texts.map((t) => t.n));
  const tok = new Float32Array(K * N * HIDDEN);
  const mask = new Float32Array(K * N);
  const pooled = new Float32Array(K * HIDDEN);
  texts.forEach((t, k) => {
    tok.set(t.tokens.subarray(0, t.n * HIDDEN), k * N * HIDDEN);
    for (let i = 0; i < t.n; i++) mask[k * N + i] = 1;
    pooled.set(t.pooled, k * HIDDEN);
  });
  return { tokens: tf.tensor3d(tok, [K, N, HIDDEN]), mask: tf.tensor2d(mask, [K, N]), pooled: tf.tensor2d(pooled, [K, HIDDEN]) };
}

/**
 * The match block for K texts against one state: features [K, NF] and readouts [K, VAL].
 * Texts without tokens give zero features (apart from the pooled cosine, 0 for a zero vector).
 */
export function match(p: Params, s: PreparedState, packed: { tokens: tf.Tensor3D; mask: tf.Tensor2D; pooled: tf.Tensor2D }): { f: tf.Tensor2D; r: tf.Tensor2D } {
  const [K, N] = packed.mask.shape;
  const flat = tf.reshape(packed.tokens, [K * N, HIDDEN]) as tf.Tensor2D;
  const maskFlat = tf.reshape(packed.mask, [K * N]);
  const simR = tf.matMul(rowNormalise(flat), s.norm, false, true); // [KN, T]
  const simP = tf.matMul(rowNormalise(tf.matMul(flat, p.proj as tf.Tensor2D)), s.projT); // [KN, T]
  const mR = tf.max(simR, 1); // [KN]
  const mP = tf.div(tf.logSumExp(tf.mul(simP, BETA), 1), BETA);
  const align = tf.softmax(tf.mul(simP, BETA)); // [KN, T]
  const aligned = tf.matMul(align, s.values); // [KN, V]
  // Token importances: softmax over each text's real tokens.
  const impLogits = tf.reshape(tf.matMul(flat, p.importance as tf.Tensor2D), [K, N]);
  const masked = tf.add(impLogits, tf.mul(tf.sub(packed.mask, 1), 1e9));
  const omega = tf.mul(tf.softmax(masked), packed.mask); // [K, N]
  const count = tf.maximum(tf.sum(packed.mask, 1, true), 1);
  const uniform = tf.div(packed.mask, count);
  const mR2 = tf.reshape(tf.mul(mR, maskFlat), [K, N]);
  const mP2 = tf.reshape(tf.mul(mP, maskFlat), [K, N]);
  const pooledCos = tf.sum(tf.mul(packed.pooled, tf.reshape(s.pooled, [1, HIDDEN])), 1);
  const f = tf.stack(
    [
      tf.sum(tf.mul(omega, mR2), 1),
      tf.sum(tf.mul(omega, mP2), 1),
      tf.sum(tf.mul(uniform, mR2), 1),
      tf.sum(tf.mul(uniform, mP2), 1),
      tf.maximum(tf.max(tf.add(mR2, tf.mul(tf.sub(packed.mask, 1), 2)), 1), 0),
      pooledCos,
    ],
    1,
  ) as tf.Tensor2D;
  const r = tf.sum(tf.mul(tf.reshape(aligned, [K, N, VAL]), tf.expandDims(omega, 2)), 1) as tf.Tensor2D;
  return { f, r };
}

function mlp(x: tf.Tensor2D, w1: tf.Tensor, b1: tf.Tensor, w2: tf.Tensor, b2?: tf.Tensor): tf.Tensor1D {
  const h = tf.relu(tf.add(tf.matMul(x, w1 as tf.Tensor2D), b1));
  const o = tf.matMul(h, w2 as tf.Tensor2D);
  return tf.reshape(b2 ? tf.add(o, b2) : o, [-1]) as tf.Tensor1D;
}

/**
 * noul logits for Q questions: `instr` packs their instructions, `crit` (optional) packs the
 * [true, false] criteria of each as 2Q texts, `hasCrit` [Q] is 1 where a question has criteria.
 */
export function noulLogits(
  p: Params,
  s: PreparedState,
  instr: ReturnType<typeof packTexts>,
  crit: ReturnType<typeof packTexts>,
  hasCrit: tf.Tensor1D,
): tf.Tensor1D {
  const { f, r } = match(p, s, instr);
  const q = tf.mul(r, tf.matMul(instr.pooled, p.nQuery as tf.Tensor2D));
  const prior = tf.matMul(instr.pooled, p.nPrior as tf.Tensor2D);
  const base = mlp(tf.concat([f, q, prior], 1) as tf.Tensor2D, p.n1!, p.n1b!, p.n2!, p.n2b!);
  const Q = instr.mask.shape[0];
  const cm = match(p, s, crit).f; // [2Q, NF]
  const pair = tf.reshape(cm, [Q, 2, NF]);
  const diff = tf.reshape(tf.sub(tf.slice(pair, [0, 0, 0], [Q, 1, NF]), tf.slice(pair, [0, 1, 0], [Q, 1, NF])), [Q, NF]);
  const critTerm = tf.reshape(tf.matMul(diff, p.nCrit as tf.Tensor2D), [Q]);
  // Where criteria define yes and no, the criteria term leads and the plain question is damped.
  const gate = tf.sub(1, tf.mul(hasCrit, tf.sigmoid(p.nGate!)));
  return tf.add(tf.mul(base, gate), tf.mul(critTerm, hasCrit)) as tf.Tensor1D;
}

function centred(f: tf.Tensor2D): tf.Tensor2D {
  return tf.sub(f, tf.mean(f, 0, true));
}

/** choice logits for the K options of one question (`lines` packs the option lines). */
export function choiceLogits(p: Params, s: PreparedState, lines: ReturnType<typeof packTexts>): tf.Tensor1D {
  const { f, r } = match(p, s, lines);
  const inter = tf.mul(r, tf.matMul(lines.pooled, p.cLine as tf.Tensor2D));
  const prior = tf.matMul(lines.pooled, p.cPrior as tf.Tensor2D);
  return mlp(tf.concat([f, centred(f), inter, prior], 1) as tf.Tensor2D, p.c1!, p.c1b!, p.c2!);
}

/**
 * score logits for the K levels of one question. Features: each level's match, centred, the
 * mean of its neighbours' centred matches, and |position - middle| features: all unchanged in
 * value when the rubric is reversed, so the distribution reverses with it.
 */
export function scoreLogits(p: Params, s: PreparedState, lines: ReturnType<typeof packTexts>): tf.Tensor1D {
  const { f, r } = match(p, s, lines);
  const K = f.shape[0];
  const c = centred(f);
  const nb = new Float32Array(K * K);
  for (let k = 0; k < K; k++) {
    const ns = [k - 1, k + 1].filter((j) => j >= 0 && j < K);
    for (const j of ns) nb[k * K + j] = 1 / ns.length;
  }
  const neighbours = tf.matMul(tf.tensor2d(nb, [K, K]), c);
  const pos = new Float32Array(K * 2);
  for (let k = 0; k < K; k++) {
    const x = K > 1 ? (2 * k) / (K - 1) - 1 : 0;
    pos[2 * k] = Math.abs(x);
    pos[2 * k + 1] = x * x;
  }
  const inter = tf.mul(r, tf.matMul(lines.pooled, p.sLine as tf.Tensor2D));
  return mlp(tf.concat([f, c, neighbours, inter, tf.tensor2d(pos, [K, 2])], 1) as tf.Tensor2D, p.s1!, p.s1b!, p.s2!);
}

/** Option-count buckets of the temperatures. */
export function bucketOf(type: 'noul' | 'choice' | 'score', k: number): string {
  if (type === 'noul') return 'noul';
  if (type === 'choice') return k <= 2 ? 'choice:2' : k <= 4 ? 'choice:3-4' : k <= 8 ? 'choice:5-8' : 'choice:9+';
  return k <= 3 ? 'score:2-3' : k <= 5 ? 'score:4-5' : 'score:6+';
}

export const BUCKETS = ['noul', 'choice:2', 'choice:3-4', 'choice:5-8', 'choice:9+', 'score:2-3', 'score:4-5', 'score:6+'] as const;
