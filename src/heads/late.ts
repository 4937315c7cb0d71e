/**
 * Late-interaction heads: the question's own tokens read the state's cached token states.
 *
 * Stage 1, alignment (no parameters, {@link alignTexts}): every token of every text a question
 * brings (its instructions, and one line per outcome: a choice option, a score level, a noul
 * criterion) is compared by cosine with every token state of the state. Each text token keeps
 * its best match, a soft maximum, and the soft-aligned state vector (attention of that token
 * over the state's tokens). The same attention reads parameter-free cues from the token ids
 * (cues.ts): whether the state tokens a text token lands on are negated, whether the text is
 * negated itself, and whether a numeric threshold it asks about ("more than 50") holds for the
 * state's nearest number. Computed once per (state, text); in training, once for the corpus.
 *
 * Stage 2, the trained heads ({@link forward}): learned token importances pool those per-token
 * matches into match features, and a learned value projection of the aligned state vectors
 * gives a readout of what the state says where the text's words land. Small per-type MLPs
 * turn them into logits: one per outcome, softmaxed across a question's outcomes for choice and
 * score (the same parameters for every option: any number of options, no dependence on option
 * order), a yes/no readout of the instructions' interaction with the state for noul, plus an
 * antisymmetric term for noul criteria. Score features are symmetric in the level order, so a
 * reversed rubric gives the reversed distribution. Temperatures per type and option-count
 * bucket calibrate the logits.
 *
 * Everything in stage 2 is dense matrix algebra over a flat batch of texts, so the same code
 * trains (tf.Variables, gradients on the wasm backend) and serves (constants, one question).
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Batch, PairInputs } from './batch.js';
import { ALIGN_CELLS, alignRows, prepareState, releaseState, spanScores } from './align-kernel.js';
import { comparisonFeatures, textCues } from './cues.js';
import { textNorms } from './text-norms.js';

export const HIDDEN = 512;
/** Width of the value readout. */
export const VAL = 16;
/** Width of the MLP hidden layers. */
export const MLP = 32;
/** Fixed (parameter-free) match features per text: 8 match + 4 cue features (see cues.ts). */
export const NFIXED = 12;
/** Span length and stride (tokens) of the state's phrase vectors. */
export const SPAN = 12;
const SPAN_STRIDE = 6;
/**
 * Per-token match values: best cosine, soft maximum, exact token match, whether the state
 * tokens the token aligns to lie in a negation's scope, and whether that disagrees with the
 * token's own negation in its text.
 */
export const PER_TOKEN = 5;
/** Match features per text: the fixed ones + the importance-weighted per-token values. */
export const NF = NFIXED + PER_TOKEN;
/** Sharpness of the soft maximum and of the soft alignment over state tokens. */
export const BETA = 20;

/** Parameter names and shapes. */
export const PARAM_SHAPES: Record<string, number[]> = {
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
  // No state-independent option prior: it learns which option names the training corpus
  // favours, which does not carry over to other option sets (topic labels, for example).
  c1: [2 * NF + VAL, MLP],
  c1b: [MLP],
  c2: [MLP, 1],
  // score
  sLine: [HIDDEN, VAL],
  s1: [3 * NF + VAL + 2, MLP],
  s1b: [MLP],
  s2: [MLP, 1],
  // Questions comparing two state fields (fields.ts): (cosine - at) times a direction read
  // from the outcome's own text, so it never depends on option order. Not for noul: read from
  // the instructions, such a direction did not carry over to new wordings (model card).
  cPair: [HIDDEN, 1],
  cPairAt: [1],
  sPair: [HIDDEN, 1],
  sPairAt: [1],
};

export type Params = Record<string, tf.Tensor>;

/** A text's encoding as the heads read it. */
export interface TextRep {
  /** Per-token states, [n, 512] row-major. */
  tokens: Float32Array;
  n: number;
  /** Pooled sentence vector (unit length, or zeros for an empty text). */
  pooled: Float32Array;
  /** Token ids (parallel to the token states), for exact matches; absent means no exact matches. */
  ids?: readonly number[];
}

/** A text aligned to one state (stage 1 output). */
export interface Aligned {
  n: number;
  /** The text's token states [n, 512]. */
  tokens: Float32Array;
  /** Soft-aligned (unit-normalised) state vectors per text token [n, 512]. */
  aligned: Float32Array;
  /** Best cosine per text token [n]. */
  best: Float32Array;
  /** Soft maximum (log-sum-exp / BETA) of the cosines per text token [n]. */
  soft: Float32Array;
  /** 1 where the text token's id occurs in the state [n]. */
  exact: Float32Array;
  /** Attention-weighted share of the aligned state tokens that lie in a negation's scope [n]. */
  negAtt: Float32Array;
  /** 1 where the text token lies in a negation's scope within its own text [n]. */
  selfNeg: Float32Array;
  /**
   * Fixed match features: mean best, max best, mean soft, pooled cosine with the state, 1 if
   * empty, mean exact, best and soft-max span cosine; then the text is negated, it asks a
   * numeric comparison, the comparison's sign for the closest state number and its weighted mean.
   */
  fixed: number[];
  pooled: Float32Array;
}

/** What stage 1's tensor work reads: the texts' normalised tokens and means, the state's side. */
export interface AlignPlan {
  state: TextRep;
  texts: readonly TextRep[];
  /** Text tokens in all. */
  total: number;
  stateCues: ReturnType<typeof textCues>;
  /** 1 where a state token lies in a negation's scope [state.n]. */
  stateNeg: Float32Array;
  /** First token of each phrase span of the state. */
  spanStarts: number[];
  /** The texts' normalised token states, stacked [total, HIDDEN]. */
  flat: Float32Array;
  /** The texts' normalised means [texts, HIDDEN]. */
  textMeans: Float32Array;
}

/** What stage 1's tensor work gives per text token and per text (align-kernel.ts; native/align-graph.ts). */
export interface AlignCore {
  best: Float32Array;
  soft: Float32Array;
  aligned: Float32Array;
  negAtt: Float32Array;
  argmax: Int32Array;
  spanBest: Float32Array;
  spanSoft: Float32Array;
}

/** Stage 1's inputs; `tensorWork` says whether there is anything to compare (text tokens and state tokens). */
export function planAlignment(state: TextRep, texts: readonly TextRep[]): AlignPlan & { tensorWork: boolean } {
  const total = texts.reduce((s, t) => s + t.n, 0);
  const stateCues = textCues(state.ids ?? []);
  const stateNeg = state.ids && stateCues.negScope.length === state.n ? stateCues.negScope : new Float32Array(state.n);
  // Phrase vectors of the state: means of its normalised token states over sliding spans;
  // each text is compared with them through the mean of its own normalised token states.
  const spanStarts: number[] = [];
  for (let st = 0; st === 0 || st + SPAN - SPAN_STRIDE < state.n; st += SPAN_STRIDE) spanStarts.push(st);
  const tensorWork = total > 0 && state.n > 0;
  const flat = new Float32Array(tensorWork ? total * HIDDEN : 0);
  const textMeans = new Float32Array(tensorWork ? texts.length * HIDDEN : 0);
  if (tensorWork) {
    // The texts' own halves (normalised tokens, normalised means) are kept per text.
    let o = 0;
    textNorms(texts, HIDDEN).forEach((t, k) => {
      flat.set(t.tokens, o);
      o += t.tokens.length;
      textMeans.set(t.mean, k * HIDDEN);
    });
  }
  return { state, texts, total, stateCues, stateNeg, spanStarts, flat, textMeans, tensorWork };
}

/** Stage 1's tensor work on tfjs: the state's side once, then the texts' tokens in blocks of rows (align-kernel.ts). */
function alignCore(plan: AlignPlan, cells: number): AlignCore {
  const { state, total, texts } = plan;
  const side = prepareState({ state: state.tokens, n: state.n, width: HIDDEN, negation: plan.stateNeg, spanStarts: plan.spanStarts, span: SPAN });
  try {
    const core: AlignCore = {
      best: new Float32Array(total),
      soft: new Float32Array(total),
      aligned: new Float32Array(total * HIDDEN),
      negAtt: new Float32Array(total),
      argmax: new Int32Array(total),
      spanBest: new Float32Array(0),
      spanSoft: new Float32Array(0),
    };
    const rows = Math.max(1, Math.floor(cells / side.columns));
    for (let r0 = 0; r0 < total; r0 += rows) {
      const r1 = Math.min(total, r0 + rows);
      const out = tf.tidy(() => alignRows(side, tf.tensor2d(plan.flat.subarray(r0 * HIDDEN, r1 * HIDDEN), [r1 - r0, HIDDEN]), BETA));
      core.best.set(out[0]!.dataSync() as Float32Array, r0);
      core.soft.set(out[1]!.dataSync() as Float32Array, r0);
      core.aligned.set(out[2]!.dataSync() as Float32Array, r0 * HIDDEN);
      core.negAtt.set(out[3]!.dataSync() as Float32Array, r0);
      core.argmax.set(out[4]!.dataSync() as Int32Array, r0);
      tf.dispose(out);
    }
    const spanOut = tf.tidy(() => spanScores(side, tf.tensor2d(plan.textMeans, [texts.length, HIDDEN]), BETA));
    core.spanBest = spanOut[0]!.dataSync() as Float32Array;
    core.spanSoft = spanOut[1]!.dataSync() as Float32Array;
    tf.dispose(spanOut);
    return core;
  } finally {
    releaseState(side);
  }
}

/** Stage 1's result when there is nothing to compare: zeros. */
export function emptyCore(plan: AlignPlan): AlignCore {
  const { total, texts } = plan;
  return {
    best: new Float32Array(total),
    soft: new Float32Array(total),
    aligned: new Float32Array(total * HIDDEN),
    negAtt: new Float32Array(total),
    argmax: new Int32Array(total),
    spanBest: new Float32Array(texts.length),
    spanSoft: new Float32Array(texts.length),
  };
}

/** Per text, from the tensor work's outputs: the token-id cues and the fixed match features (plain JavaScript). */
export function finishAlignment(plan: AlignPlan, core: AlignCore): Aligned[] {
  const { state, texts, stateCues } = plan;
  const { best, soft, aligned, negAtt, argmax, spanBest, spanSoft } = core;
  const stateIds = new Set(state.ids ?? []);
  let row = 0;
  return texts.map((t, k) => {
    const exact = new Float32Array(t.n);
    if (t.ids) for (let i = 0; i < t.n; i++) exact[i] = stateIds.has(t.ids[i]!) ? 1 : 0;
    const b = best.slice(row, row + t.n);
    const sf = soft.slice(row, row + t.n);
    const a = aligned.slice(row * HIDDEN, (row + t.n) * HIDDEN);
    const na = negAtt.slice(row, row + t.n);
    const am = argmax.slice(row, row + t.n);
    row += t.n;
    const own = t.ids && t.ids.length === t.n ? textCues(t.ids) : null;
    const selfNeg = own ? own.negScope : new Float32Array(t.n);
    const cmp = own && state.n > 0 ? comparisonFeatures(own, stateCues, b, am) : [0, 0, 0];
    let cos = 0;
    for (let h = 0; h < HIDDEN; h++) cos += (t.pooled[h] ?? 0) * (state.pooled[h] ?? 0);
    const mean = (v: Float32Array) => (v.length ? v.reduce((x, y) => x + y, 0) / v.length : 0);
    const fixed = [mean(b), b.length ? Math.max(...b) : 0, mean(sf), cos, t.n === 0 ? 1 : 0, mean(exact), t.n ? spanBest[k]! : 0, t.n ? spanSoft[k]! : 0, own?.negated ?? 0, ...cmp];
    return { n: t.n, tokens: t.tokens.subarray(0, t.n * HIDDEN), aligned: a, best: b, soft: sf, exact, negAtt: na, selfNeg, fixed, pooled: t.pooled };
  });
}

/**
 * Stage 1: aligns texts to a state's token states. The state is prepared once per call; the
 * similarity matrix is built for at most `cells` (text tokens x state tokens) at a time, which
 * changes no value (align-kernel.ts). Texts without tokens give empty alignments. The tensor
 * work may run on onnxruntime-node instead (native/align-graph.ts), between the same plan and
 * finish.
 */
export function alignTexts(state: TextRep, texts: readonly TextRep[], cells = ALIGN_CELLS): Aligned[] {
  const plan = planAlignment(state, texts);
  return finishAlignment(plan, plan.tensorWork ? alignCore(plan, cells) : emptyCore(plan));
}

/** Gain of the pair term: cosines of unrelated and of equal texts lie about 0.7 apart. */
const PAIR_GAIN = 8;

/** The pair term: gain x (cosine - at) x (pooled text . direction) where a pair exists, else 0; [N]. */
function pairTerm(pair: PairInputs, pooled: tf.Tensor, direction: tf.Tensor, at: tf.Tensor): tf.Tensor1D {
  const coef = tf.mul(tf.sub(pair.sim, tf.mul(pair.has, at)), PAIR_GAIN);
  return tf.reshape(tf.mul(coef, tf.matMul(pooled as tf.Tensor2D, direction as tf.Tensor2D)), [-1]) as tf.Tensor1D;
}

function mlp(x: tf.Tensor2D, w1: tf.Tensor, b1: tf.Tensor, w2: tf.Tensor, b2?: tf.Tensor): tf.Tensor1D {
  const h = tf.relu(tf.add(tf.matMul(x, w1 as tf.Tensor2D), b1));
  const o = tf.matMul(h, w2 as tf.Tensor2D);
  return tf.reshape(b2 ? tf.add(o, b2) : o, [-1]) as tf.Tensor1D;
}

/** Logits of a batch: noul [Qn] (yes logit), choice and score [lines] (to softmax per question). */
export function forward(p: Params, b: Batch): { noul: tf.Tensor1D | null; choice: tf.Tensor1D | null; score: tf.Tensor1D | null } {
  // Token importances, bounded so that exp never overflows; normalised within each text.
  const imp = tf.exp(tf.mul(tf.tanh(tf.div(tf.matMul(b.tokens, p.importance as tf.Tensor2D), 5)), 5)); // [F,1]
  const norm = tf.maximum(tf.matMul(b.assign, imp), 1e-9); // [M,1]
  const weighted = tf.matMul(b.assign, tf.concat([tf.mul(b.bestSoft, imp), tf.mul(tf.matMul(b.aligned, p.value as tf.Tensor2D), imp)], 1)); // [M, 2+V]
  const pooledW = tf.div(weighted, norm);
  const f = tf.concat([b.fixed, tf.slice(pooledW, [0, 0], [-1, PER_TOKEN])], 1) as tf.Tensor2D; // [M, NF]
  const r = tf.slice(pooledW, [0, PER_TOKEN], [-1, VAL]) as tf.Tensor2D; // [M, V]
  const out: ReturnType<typeof forward> = { noul: null, choice: null, score: null };
  if (b.noul) {
    const fi = tf.matMul(b.noul.instr, f);
    const ri = tf.matMul(b.noul.instr, r);
    const pi = tf.matMul(b.noul.instr, b.pooled);
    const q = tf.mul(ri, tf.matMul(pi, p.nQuery as tf.Tensor2D));
    const prior = tf.matMul(pi, p.nPrior as tf.Tensor2D);
    const base = mlp(tf.concat([fi, q, prior], 1) as tf.Tensor2D, p.n1!, p.n1b!, p.n2!, p.n2b!);
    const diff = tf.matMul(tf.sub(b.noul.critT, b.noul.critF), f);
    const crit = tf.reshape(tf.matMul(diff, p.nCrit as tf.Tensor2D), [-1]);
    const gate = tf.sub(1, tf.mul(b.noul.has, tf.sigmoid(p.nGate!)));
    out.noul = tf.add(tf.mul(base, gate), tf.mul(crit, b.noul.has)) as tf.Tensor1D;
  }
  if (b.choice) {
    const fl = tf.matMul(b.choice.lines, f);
    const centred = tf.sub(fl, tf.matMul(b.choice.mean, fl));
    const pl = tf.matMul(b.choice.lines, b.pooled);
    const inter = tf.mul(tf.matMul(b.choice.lines, r), tf.matMul(pl, p.cLine as tf.Tensor2D));
    out.choice = tf.add(mlp(tf.concat([fl, centred, inter], 1) as tf.Tensor2D, p.c1!, p.c1b!, p.c2!), pairTerm(b.choice.pair, pl, p.cPair!, p.cPairAt!)) as tf.Tensor1D;
  }
  if (b.score) {
    const fl = tf.matMul(b.score.lines, f);
    const centred = tf.sub(fl, tf.matMul(b.score.mean, fl));
    const nb = tf.matMul(b.score.neighbours, centred);
    const pl = tf.matMul(b.score.lines, b.pooled);
    const inter = tf.mul(tf.matMul(b.score.lines, r), tf.matMul(pl, p.sLine as tf.Tensor2D));
    out.score = tf.add(mlp(tf.concat([fl, centred, nb, inter, b.score.pos], 1) as tf.Tensor2D, p.s1!, p.s1b!, p.s2!), pairTerm(b.score.pair, pl, p.sPair!, p.sPairAt!)) as tf.Tensor1D;
  }
  return out;
}

/**
 * Per-question log-softmax of grouped logits: logits are bounded (15 tanh(x/15)) so that the
 * group sums never overflow, then normalised within each question by the group matrix.
 */
export function groupLogSoftmax(logits: tf.Tensor1D, group: tf.Tensor2D): tf.Tensor1D {
  const z = tf.mul(tf.tanh(tf.div(logits, 15)), 15);
  const e = tf.reshape(tf.exp(z), [-1, 1]);
  const sums = tf.matMul(group, e); // [G,1]
  const back = tf.matMul(group, sums, true, false); // [L,1]
  return tf.sub(z, tf.reshape(tf.log(back), [-1])) as tf.Tensor1D;
}

/** Bounded logits as used in training (so that serving matches the trained scale). */
export function boundLogits(logits: readonly number[]): number[] {
  return logits.map((x) => 15 * Math.tanh(x / 15));
}

/** Option-count buckets of the temperatures. */
export function bucketOf(type: 'noul' | 'choice' | 'score', k: number): string {
  if (type === 'noul') return 'noul';
  if (type === 'choice') return k <= 2 ? 'choice:2' : k <= 4 ? 'choice:3-4' : k <= 8 ? 'choice:5-8' : 'choice:9+';
  return k <= 3 ? 'score:2-3' : k <= 5 ? 'score:4-5' : 'score:6+';
}

export const BUCKETS = ['noul', 'choice:2', 'choice:3-4', 'choice:5-8', 'choice:9+', 'score:2-3', 'score:4-5', 'score:6+'] as const;
