/**
 * The reader's forward pass on tfjs (see architecture.ts for what it is). The same function
 * trains (parameters as tf.Variables, gradients) and serves (constants): logits per question.
 *
 * Products are written without transposed operands: tfjs-wasm runs `transposeA/B` products
 * many times slower than an explicit transpose followed by a plain product.
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { BOUND, FIELD_PAIR_BASE, type ReaderShape } from './architecture.js';
import type { OutcomeLayout, ReaderBatch, ScoreLevels } from './batch.js';
import { batchedProduct } from '../../kernels/batch-matmul.js';
import { dense, gemmReady, packable, packDense, type PackedDense } from '../../kernels/gemm.js';

export type ReaderParams = Record<string, tf.Tensor>;

/**
 * Serving only: weight matrices packed for our WebAssembly kernel (`packDense`), by parameter
 * name, with their bias when the layer has one. tfjs-wasm's own products ran at about a third
 * of its speed and were most of the reader's time per request.
 */
export type PackedParams = Record<string, PackedDense>;

/** The bias `linear` adds after a matrix: `X.w` -> `X.b`, `X.w1` -> `X.b1`, `lN.f1` -> `lN.f1b`; none for the others. */
function biasOf(name: string): string | null {
  if (name.endsWith('.w')) return `${name.slice(0, -2)}.b`;
  if (/\.w[12]$/.test(name)) return `${name.slice(0, -3)}.b${name.slice(-1)}`;
  if (/^l\d+\.f[12]$/.test(name)) return `${name}b`;
  return null;
}

/** The packed form of every matrix of a member the kernel can serve (widths a multiple of 8). */
export function packParams(p: ReaderParams): PackedParams {
  const out: PackedParams = {};
  if (!gemmReady()) return out;
  for (const [name, w] of Object.entries(p)) {
    if (w.rank !== 2 || !packable(w.shape[0]!, w.shape[1]!)) continue;
    const b = biasOf(name);
    out[name] = tf.tidy(() => {
      const d = packDense(w as tf.Tensor2D, (b && p[b] ? p[b] : tf.zeros([w.shape[1]!])) as tf.Tensor1D);
      return { ...d, packed: tf.keep(d.packed), bias: tf.keep(d.bias) };
    });
  }
  return out;
}

/** `linear` with a member's parameters by name: its bias (see `biasOf`) added, packed when it can be. */
type Linear = (x: tf.Tensor, name: string) => tf.Tensor;

function linearOf(p: ReaderParams, packed: PackedParams | undefined): Linear {
  return (x, name) => {
    const b = biasOf(name);
    const w = p[name]!;
    const pw = packed?.[name];
    if (!pw) return linear(x, w, b ? p[b] : undefined);
    const shape = x.shape;
    const y = dense(tf.reshape(x, [-1, shape[shape.length - 1]!]) as tf.Tensor2D, pw);
    return tf.reshape(y, [...shape.slice(0, -1), w.shape[1]!]);
  };
}

/**
 * Per type, bounded logits of that type's questions: noul [Qn]; choice and score flat, one per
 * outcome line in the batch's layout (`slotLogits` lays them out per question).
 */
export interface ReaderLogits {
  noul: tf.Tensor1D | null;
  choice: tf.Tensor1D | null;
  score: tf.Tensor1D | null;
}

const EPS = 1e-5;

/** Layer norm over the last axis, with optional gain and bias. */
function layerNorm(x: tf.Tensor, g?: tf.Tensor, b?: tf.Tensor): tf.Tensor {
  const { mean, variance } = tf.moments(x, -1, true);
  let y = tf.mul(tf.sub(x, mean), tf.rsqrt(tf.add(variance, EPS)));
  if (g) y = tf.mul(y, g);
  if (b) y = tf.add(y, b);
  return y;
}

/** x [..., k] times w [k, n] (+ b), as one 2-D product. */
function linear(x: tf.Tensor, w: tf.Tensor, b?: tf.Tensor): tf.Tensor {
  const shape = x.shape;
  const k = shape[shape.length - 1]!;
  let y: tf.Tensor = tf.matMul(tf.reshape(x, [-1, k]) as tf.Tensor2D, w as tf.Tensor2D);
  if (b) y = tf.add(y, b);
  return tf.reshape(y, [...shape.slice(0, -1), w.shape[1]!]);
}

/** [G, L, d] -> [G, heads, L, d / heads] */
function splitHeads(x: tf.Tensor, heads: number): tf.Tensor4D {
  const [G, L, d] = x.shape as [number, number, number];
  return tf.transpose(tf.reshape(x, [G, L, heads, d / heads]), [0, 2, 1, 3]);
}

/** One reader layer: attention of every text row over its state's tokens, then feed-forward. */
function readerLayer(p: ReaderParams, lin: Linear, l: number, shape: ReaderShape, x: tf.Tensor, state: tf.Tensor, b: ReaderBatch): tf.Tensor {
  const pre = `l${l}.`;
  const P = (n: string) => p[pre + n]!;
  const h = shape.heads;
  const dh = shape.width / h;
  const [G, R] = x.shape as [number, number];
  const y = layerNorm(x, P('ln1.g'), P('ln1.b'));
  const q = tf.mul(splitHeads(lin(y, pre + 'q'), h), 1 / Math.sqrt(dh));
  const kS = splitHeads(lin(state, pre + 'sk'), h);
  const vS = splitHeads(lin(state, pre + 'sv'), h);
  const matchBias = tf.mul(b.stateMatch, tf.reshape(P('match'), [1, h, 1, 1]));
  const scores = tf.add(tf.add(batchedProduct(q, tf.transpose(kS, [0, 1, 3, 2])), b.stateBias), matchBias);
  const mixed = batchedProduct(tf.softmax(scores), vS); // [G, h, R, dh]
  const merged = tf.reshape(tf.transpose(mixed, [0, 2, 1, 3]), [G, R, shape.width]);
  const x1 = tf.add(x, lin(merged, pre + 'o'));
  const f = tf.relu(lin(layerNorm(x1, P('ln2.g'), P('ln2.b')), pre + 'f1'));
  return tf.add(x1, lin(f, pre + 'f2'));
}

/** Readout vectors of every text slot, [G * T + 1, 2 * width]; the last row is zeros. */
function readouts(p: ReaderParams, shape: ReaderShape, x: tf.Tensor, b: ReaderBatch): tf.Tensor2D {
  const final = layerNorm(x, p['out.ln.g']!, p['out.ln.b']!); // [G, R, d]
  const mean = batchedProduct(b.meanPool, final); // [G, T, d]
  const scores = tf.transpose(linear(final, p['out.pool']!), [0, 2, 1]); // [G, 1, R]
  const weights = tf.softmax(tf.add(scores, b.poolBias)); // [G, T, R]
  const pooled = batchedProduct(weights, final);
  const v = tf.reshape(tf.concat([mean, pooled], 2), [-1, 2 * shape.width]);
  return tf.concat([tf.mul(v, b.present), tf.zeros([1, 2 * shape.width])], 0) as tf.Tensor2D;
}

/**
 * A readout MLP. Leaky, not plain ReLU: a plain ReLU readout died in training (every hidden unit
 * negative for every input, so no gradient ever reached it again: noul stayed at chance for
 * thousands of steps while choice learned).
 */
function mlp(lin: Linear, prefix: string, x: tf.Tensor2D): tf.Tensor1D {
  const h = tf.leakyRelu(lin(x, `${prefix}.w1`), 0.1);
  return tf.reshape(lin(h, `${prefix}.w2`), [-1]) as tf.Tensor1D;
}

/** A soft clip to ±BOUND, so no logit runs away in training and serving reads the same scale. */
export function bound(x: tf.Tensor): tf.Tensor {
  return tf.mul(tf.tanh(tf.div(x, BOUND)), BOUND);
}

/**
 * Rows of `v` by index. tfjs-wasm has no gradient kernel for gather (UnsortedSegmentSum), so
 * in training the rows are picked by a product with a one-hot matrix instead; serving gathers.
 */
function rows(v: tf.Tensor2D, index: readonly number[], differentiable: boolean): tf.Tensor2D {
  if (!differentiable) return tf.gather(v, tf.tensor1d(index as number[], 'int32'));
  const n = v.shape[0];
  const onehot = new Float32Array(index.length * n);
  index.forEach((j, i) => (onehot[i * n + j] = 1));
  return tf.matMul(tf.tensor2d(onehot, [index.length, n]), v);
}

/** Entries of a vector by index (see `rows`). */
function entries(x: tf.Tensor1D, index: readonly number[], differentiable: boolean): tf.Tensor1D {
  return tf.reshape(rows(tf.reshape(x, [-1, 1]) as tf.Tensor2D, index, differentiable), [-1]) as tf.Tensor1D;
}

/**
 * The ordinal term of every score level, s * d * p_k (architecture.ts). d is summed as
 * sum_k p_k (h_k - h_mirror(k)) / (2K): those summands read the same from both ends of the
 * rubric and are all negated by a reversal, so d flips sign exactly in float arithmetic
 * (sum_k p_k h_k, summed in level order, would not). The sum runs over each question's own
 * levels in level order, one column at a time, so a question's bits never depend on the rest
 * of its batch (onnx-graph.ts sums in the same order).
 */
function ordinalTerm(lin: Linear, v: tf.Tensor2D, s: OutcomeLayout & ScoreLevels, pair: tf.Tensor2D, differentiable: boolean): tf.Tensor1D {
  const h = mlp(lin, 'ord.h', pair);
  const signed = tf.tensor1d(s.signed);
  const t = tf.mul(signed, tf.sub(h, entries(h, s.mirror, differentiable))) as tf.Tensor1D;
  const padded = tf.concat([t, tf.zeros([1])]) as tf.Tensor1D; // slots' padding points one past the end
  const perQuestion = tf.reshape(entries(padded, s.slots.flat(), differentiable), [s.slots.length, s.width]);
  const columns = tf.unstack(perQuestion, 1);
  let sum = columns[0]!;
  for (let k = 1; k < columns.length; k++) sum = tf.add(sum, columns[k]!);
  const direction = tf.mul(entries(sum as tf.Tensor1D, s.question, differentiable), tf.tensor1d(s.scale));
  const intensity = mlp(lin, 'ord.s', rows(v, s.instr, differentiable));
  return tf.mul(tf.mul(direction, signed), intensity) as tf.Tensor1D;
}

/**
 * The field-pair term of every outcome line (architecture.ts): ((FIELD_PAIR_BASE + a) . [c, 1]) g_k, with the
 * line's [c, has] input; exactly 0 for a line whose question compares no fields.
 */
function fieldPairTerm(lin: Linear, p: ReaderParams, coefficients: string, lines: OutcomeLayout, features: tf.Tensor2D): tf.Tensor1D {
  // Most batches compare no fields: their term is exactly 0 without reading g.
  if (lines.pair.every((x) => x === 0)) return tf.zeros([lines.line.length]);
  const g = mlp(lin, 'pair.g', features);
  const input = tf.tensor2d(lines.pair, [lines.line.length, 2]);
  const coef = tf.reshape(tf.matMul(input, tf.reshape(tf.add(p[coefficients]!, [...FIELD_PAIR_BASE]), [2, 1])), [-1]);
  return tf.mul(coef, g) as tf.Tensor1D;
}

/** [line, line * instructions, instructions] rows. */
function pairFeatures(v: tf.Tensor2D, line: readonly number[], instr: readonly number[], differentiable: boolean): tf.Tensor2D {
  const l = rows(v, line, differentiable);
  const i = rows(v, instr, differentiable);
  return tf.concat([l, tf.mul(l, i), i], 1) as tf.Tensor2D;
}

/** Flat outcome logits laid out per question, [Q, K], padding at -1e9 (serving and prediction). */
export function slotLogits(flat: tf.Tensor1D, layout: OutcomeLayout): tf.Tensor2D {
  const padded = tf.concat([flat, tf.tensor1d([-1e9])]);
  return tf.reshape<tf.Rank.R2>(tf.gather(padded, tf.tensor1d(layout.slots.flat(), 'int32')), [layout.slots.length, layout.width]);
}

/** Log-softmax of flat outcome logits within each question (training: no gather). */
export function groupLogSoftmax(flat: tf.Tensor1D, layout: OutcomeLayout): tf.Tensor1D {
  const L = flat.shape[0];
  const member = new Float32Array(layout.slots.length * L);
  layout.slots.forEach((slots, q) => slots.forEach((j) => j < L && (member[q * L + j] = 1)));
  const group = tf.tensor2d(member, [layout.slots.length, L]);
  // Logits are bounded to ±15, so exp cannot overflow.
  const e = tf.reshape(tf.exp(flat), [-1, 1]);
  const sums = tf.matMul(group, e); // [Q, 1]
  const back = tf.matMul(tf.transpose(group), sums); // [L, 1]
  return tf.sub(flat, tf.reshape(tf.log(back), [-1])) as tf.Tensor1D;
}

/** Sharpness of the soft maximum of cosines. */
const BETA = 20;

/**
 * Per text row: the best cosine with any of its state's tokens, and a soft maximum
 * (log-sum-exp / BETA) of them, over the encoder's own token states. No parameters.
 */
function alignment(b: ReaderBatch): [tf.Tensor, tf.Tensor] {
  const unit = (x: tf.Tensor) => tf.mul(x, tf.rsqrt(tf.add(tf.sum(tf.square(x), -1, true), 1e-12)));
  const [G, , , M] = b.stateBias.shape;
  const cos = batchedProduct(unit(b.textX), tf.transpose(unit(b.stateX), [0, 2, 1])); // [G, R, M]
  const masked = tf.add(cos, tf.reshape(b.stateBias, [G, 1, M]));
  const best = tf.maximum(tf.max(masked, -1, true), -1);
  const soft = tf.maximum(tf.div(tf.logSumExp(tf.mul(masked, BETA), -1, true), BETA), -1);
  return [best, soft];
}

/**
 * Logits of every question of the batch: the base heads' log-probabilities plus the reader's
 * readouts, bounded; `differentiable` for training (see `rows`).
 */
/** What every member reads of a batch before its own parameters: normalised inputs and the alignment cues. */
export interface SharedInputs {
  stateN: tf.Tensor;
  textN: tf.Tensor;
  best: tf.Tensor;
  soft: tf.Tensor;
}

/** The parameter-free part of the forward pass, computed once per batch for all members. */
export function sharedInputs(b: ReaderBatch): SharedInputs {
  const [best, soft] = alignment(b);
  return { stateN: layerNorm(b.stateX), textN: layerNorm(b.textX), best, soft };
}

export function readerForward(
  p: ReaderParams,
  shape: ReaderShape,
  b: ReaderBatch,
  differentiable = false,
  shared: SharedInputs = sharedInputs(b),
  packed?: PackedParams,
): ReaderLogits {
  const d = differentiable;
  const lin = linearOf(p, packed);
  const state = lin(shared.stateN, 'in.state.w');
  const { best, soft } = shared;
  const cues = tf.addN([tf.mul(b.rowMatch, p['in.text.match']!), tf.mul(best, p['in.text.best']!), tf.mul(soft, p['in.text.soft']!)]);
  const x0 = tf.add(lin(shared.textN, 'in.text.w'), cues);
  const context = batchedProduct(b.rowContext, batchedProduct(b.meanPool, x0)); // [G, R, d]
  let x = tf.add(x0, lin(context, 'in.context'));
  for (let l = 0; l < shape.layers; l++) x = readerLayer(p, lin, l, shape, x, state, b);
  const v = readouts(p, shape, x, b);
  let noul: tf.Tensor1D | null = null;
  if (b.noul) {
    const n = b.noul;
    const plain = mlp(lin, 'noul', rows(v, n.instr, d));
    const yes = mlp(lin, 'crit', pairFeatures(v, n.yes, n.instr, d));
    const no = mlp(lin, 'crit', pairFeatures(v, n.no, n.instr, d));
    const c = tf.tensor1d(n.hasCrit);
    // With criteria, only the criteria's difference: swapping them negates the logit exactly.
    const delta = tf.add(tf.mul(tf.sub(1, c), plain), tf.mul(c, tf.sub(yes, no)));
    noul = bound(tf.add(tf.tensor1d(n.base), delta)) as tf.Tensor1D;
  }
  let choice: tf.Tensor1D | null = null;
  if (b.choice) {
    const features = pairFeatures(v, b.choice.line, b.choice.instr, d);
    const options = tf.add(mlp(lin, 'choice', features), fieldPairTerm(lin, p, 'pair.choice', b.choice, features));
    choice = bound(tf.add(tf.tensor1d(b.choice.base), options)) as tf.Tensor1D;
  }
  let score: tf.Tensor1D | null = null;
  if (b.score) {
    const s = b.score;
    const extra = tf.tensor2d(s.position.flatMap((pos, i) => [pos, s.count[i]!]), [s.position.length, 2]);
    const pair = pairFeatures(v, s.line, s.instr, d);
    // Summed in onnx-graph.ts' order: (independent + ordinal) + field pair.
    const levels = tf.add(tf.add(mlp(lin, 'score', tf.concat([pair, extra], 1)), ordinalTerm(lin, v, s, pair, d)), fieldPairTerm(lin, p, 'pair.score', s, pair));
    score = bound(tf.add(tf.tensor1d(s.base), levels)) as tf.Tensor1D;
  }
  return { noul, choice, score };
}
