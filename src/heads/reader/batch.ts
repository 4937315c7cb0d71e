/**
 * The reader's input tensors for a batch of groups, each group one state and some of the
 * questions asked of it (a request, or in training one case). Built in JavaScript, no
 * parameters; training and serving build the same batch.
 *
 * Within a group every question text's token rows are stacked into one sequence of rows; masks
 * say which state tokens are padding, which rows pool into which text, and which text is a
 * row's context (an outcome line's question instructions). Texts never see other outcomes'
 * texts, so options cannot see each other. Lengths are padded to multiples of 8, the panel
 * width of our matrix kernel (kernels/batch-matmul.ts).
 * @module
 */
import * as tf from '@tensorflow/tfjs-core';
import { INPUT } from './architecture.js';

/** One encoded text: per-token states [n, 512] row-major, and its token ids. */
export interface ReaderText {
  tokens: Float32Array;
  n: number;
  ids: readonly number[];
}

export interface ReaderQuestion {
  type: 'noul' | 'choice' | 'score';
  instructions: ReaderText;
  /** Outcome lines: choice options, score levels in rubric order, noul [yes, no] criteria ('' when absent). */
  lines: readonly ReaderText[];
  /**
   * The base heads' log-probabilities per outcome (noul: [ln p(yes), ln p(no)]), which the
   * reader's readout corrects; absent reads as zeros.
   */
  base?: readonly number[];
  /**
   * The cosine of the two state fields the question compares (heads/fields.ts), or null/absent
   * when it names no such pair: the field-pair term's input (architecture.ts).
   */
  fieldPair?: number | null;
}

export interface ReaderGroup {
  state: ReaderText;
  questions: readonly ReaderQuestion[];
}

const NEG = -1e9;
const up8 = (n: number) => Math.ceil(n / 8) * 8;

/** Tensors of one batch, and where each question's outputs are. */
export interface ReaderBatch {
  groups: number;
  /** [G, M, 512] state token states; [G, 1, 1, M] 0 or -1e9 for padding. */
  stateX: tf.Tensor3D;
  stateBias: tf.Tensor4D;
  /** [G, R, 512] text token states; [G, R, 1] 1 where the row's token occurs in the state. */
  textX: tf.Tensor3D;
  rowMatch: tf.Tensor3D;
  /** [G, 1, R, M] 1 where a state token occurs in the row's text. */
  stateMatch: tf.Tensor4D;
  /** [G, R, T] 1 where text t is the row's context (an outcome line's instructions). */
  rowContext: tf.Tensor3D;
  /** [G, T, R] mean-pooling weights; [G, T, R] 0 / -1e9 for attention pooling. */
  meanPool: tf.Tensor3D;
  poolBias: tf.Tensor3D;
  /** [G * T, 1] 1 for a text with tokens (an empty text reads as zeros). */
  present: tf.Tensor2D;
  /** Index of the all-zero readout row (G * T). */
  zeroRow: number;
  noul: { instr: number[]; yes: number[]; no: number[]; hasCrit: number[]; base: number[] } | null;
  /** Outcome lines of choice (or score) questions, flat, and each question's slots in them. */
  choice: OutcomeLayout | null;
  score: (OutcomeLayout & ScoreLevels) | null;
  /** Per question in input order (group by group): its type and index among its type. */
  order: { type: ReaderQuestion['type']; index: number; outcomes: number }[];
}

/** Per score level (flat, as `line`): what its logit reads besides its texts. */
export interface ScoreLevels {
  /** |p_k|, the distance from the rubric's middle (p_k = 2k / (K - 1) - 1; 0 when K = 1). */
  position: number[];
  /** K / 10. */
  count: number[];
  /** p_k, signed: the ordinal term's position. */
  signed: number[];
  /** The flat index of the level's mirror image, K - 1 - k (the middle level its own). */
  mirror: number[];
  /** The index of the level's question among the batch's score questions. */
  question: number[];
  /** 1 / (2K): d = sum_k p_k (h_k - h_mirror) / (2K), the ordinal term's direction. */
  scale: number[];
}

export interface OutcomeLayout {
  line: number[];
  instr: number[];
  /** [questions, K] indices into the flat line logits; padding points one past the end. */
  slots: number[][];
  /** The base heads' log-probability of each line's outcome. */
  base: number[];
  /** Per line, its question's field-pair input [cosine, 1] (or [0, 0] with no pair), flat. */
  pair: number[];
  width: number;
}

interface Layout {
  texts: ReaderText[];
  /** Context text (the question's instructions) per text, or -1. */
  context: number[];
}

/** The tensor inputs of a batch as flat arrays, row-major in the shapes `ReaderBatch` gives them. */
export interface ReaderBatchArrays {
  stateX: Float32Array;
  stateBias: Float32Array;
  textX: Float32Array;
  rowMatch: Float32Array;
  stateMatch: Float32Array;
  rowContext: Float32Array;
  meanPool: Float32Array;
  poolBias: Float32Array;
  present: Float32Array;
}

/** A batch before it becomes tfjs tensors: its arrays, padded sizes and layout (the ONNX reader reads these). */
export type ReaderBatchData = Omit<ReaderBatch, keyof ReaderBatchArrays> & {
  arrays: ReaderBatchArrays;
  /** [G, R] the text (0..T-1 within its group) each row belongs to; T for a padding row. */
  rowText: Int32Array;
  /** State tokens, text rows and texts per group, padded to multiples of 8. */
  M: number;
  R: number;
  T: number;
};

/** Builds the batch tensors. Call inside tf.tidy (or dispose them with `disposeBatch`). */
export function buildReaderBatch(groups: readonly ReaderGroup[]): ReaderBatch {
  const { arrays: a, M, R, T, rowText: _, ...rest } = readerBatchData(groups);
  const G = rest.groups;
  return {
    ...rest,
    stateX: tf.tensor3d(a.stateX, [G, M, INPUT]),
    stateBias: tf.tensor4d(a.stateBias, [G, 1, 1, M]),
    textX: tf.tensor3d(a.textX, [G, R, INPUT]),
    rowMatch: tf.tensor3d(a.rowMatch, [G, R, 1]),
    stateMatch: tf.tensor4d(a.stateMatch, [G, 1, R, M]),
    rowContext: tf.tensor3d(a.rowContext, [G, R, T]),
    meanPool: tf.tensor3d(a.meanPool, [G, T, R]),
    poolBias: tf.tensor3d(a.poolBias, [G, T, R]),
    present: tf.tensor2d(a.present, [G * T, 1]),
  };
}

/** The batch's arrays and layout, in JavaScript alone (no tensors). */
export function readerBatchData(groups: readonly ReaderGroup[]): ReaderBatchData {
  const G = groups.length;
  const layouts: Layout[] = [];
  const order: ReaderBatch['order'] = [];
  const noul = { instr: [] as number[], yes: [] as number[], no: [] as number[], hasCrit: [] as number[], base: [] as number[] };
  const choice: OutcomeLayout = { line: [], instr: [], slots: [], width: 0, base: [], pair: [] };
  const score: OutcomeLayout & ScoreLevels = { line: [], instr: [], slots: [], width: 0, base: [], pair: [], position: [], count: [], signed: [], mirror: [], question: [], scale: [] };
  const T = up8(Math.max(1, ...groups.map((g) => g.questions.reduce((s, q) => s + 1 + q.lines.length, 0))));
  const zeroRow = G * T;
  groups.forEach((g, gi) => {
    const layout: Layout = { texts: [], context: [] };
    const at = (t: ReaderText, ctx: number) => {
      layout.texts.push(t);
      layout.context.push(ctx);
      return t.n > 0 ? gi * T + layout.texts.length - 1 : zeroRow;
    };
    for (const q of g.questions) {
      const ti = layout.texts.length;
      const instr = at(q.instructions, -1);
      const lines = q.lines.map((l) => at(l, q.instructions.n > 0 ? ti : -1));
      if (q.type === 'noul') {
        order.push({ type: 'noul', index: noul.instr.length, outcomes: 2 });
        noul.instr.push(instr);
        noul.yes.push(lines[0] ?? zeroRow);
        noul.no.push(lines[1] ?? zeroRow);
        noul.hasCrit.push(q.lines.some((l) => l.n > 0) ? 1 : 0);
        noul.base.push(q.base ? q.base[0]! - q.base[1]! : 0);
      } else {
        const target = q.type === 'choice' ? choice : score;
        order.push({ type: q.type, index: target.slots.length, outcomes: lines.length });
        const start = target.line.length;
        target.slots.push(lines.map((_, k) => start + k));
        target.width = Math.max(target.width, lines.length);
        lines.forEach((l, k) => {
          target.line.push(l);
          target.instr.push(instr);
          target.base.push(q.base?.[k] ?? 0);
          target.pair.push(...(typeof q.fieldPair === 'number' && Number.isFinite(q.fieldPair) ? [q.fieldPair, 1] : [0, 0]));
          if (q.type === 'score') {
            const n = lines.length;
            const p = n > 1 ? (2 * k) / (n - 1) - 1 : 0;
            score.position.push(Math.abs(p));
            score.count.push(n / 10);
            score.signed.push(p);
            score.mirror.push(start + n - 1 - k);
            score.question.push(score.slots.length - 1);
            score.scale.push(1 / (2 * n));
          }
        });
      }
    }
    layouts.push(layout);
  });

  const M = up8(Math.max(1, ...groups.map((g) => g.state.n)));
  const rowsOf = layouts.map((l) => l.texts.reduce((s, t) => s + t.n, 0));
  const R = up8(Math.max(1, ...rowsOf));
  const stateX = new Float32Array(G * M * INPUT);
  const stateBias = new Float32Array(G * M).fill(NEG);
  const textX = new Float32Array(G * R * INPUT);
  const rowMatch = new Float32Array(G * R);
  const stateMatch = new Float32Array(G * R * M);
  const rowContext = new Float32Array(G * R * T);
  const meanPool = new Float32Array(G * T * R);
  const poolBias = new Float32Array(G * T * R).fill(NEG);
  const present = new Float32Array(G * T);
  const rowText = new Int32Array(G * R).fill(T);

  groups.forEach((g, gi) => {
    const st = g.state;
    stateX.set(st.tokens.subarray(0, st.n * INPUT), gi * M * INPUT);
    stateBias.fill(0, gi * M, gi * M + st.n);
    const stateIds = new Set(st.ids);
    const layout = layouts[gi]!;
    const starts: number[] = [];
    let row = 0;
    layout.texts.forEach((t, ti) => {
      starts.push(row);
      textX.set(t.tokens.subarray(0, t.n * INPUT), (gi * R + row) * INPUT);
      const textIds = new Set(t.ids);
      const matchRow = new Float32Array(M);
      for (let m = 0; m < st.n; m++) if (textIds.has(st.ids[m]!)) matchRow[m] = 1;
      for (let r = 0; r < t.n; r++) {
        rowMatch[gi * R + row + r] = stateIds.has(t.ids[r]!) ? 1 : 0;
        stateMatch.set(matchRow, (gi * R + row + r) * M);
        meanPool[(gi * T + ti) * R + row + r] = 1 / t.n;
        rowText[gi * R + row + r] = ti;
        poolBias[(gi * T + ti) * R + row + r] = 0;
      }
      if (t.n > 0) present[gi * T + ti] = 1;
      row += t.n;
    });
    layout.texts.forEach((t, ti) => {
      const ctx = layout.context[ti]!;
      if (ctx < 0) return;
      for (let r = 0; r < t.n; r++) rowContext[(gi * R + starts[ti]! + r) * T + ctx] = 1;
    });
  });

  const pad = (layout: OutcomeLayout) => {
    const end = layout.line.length;
    layout.slots = layout.slots.map((s) => [...s, ...new Array<number>(layout.width - s.length).fill(end)]);
  };
  pad(choice);
  pad(score);
  return {
    groups: G,
    arrays: { stateX, stateBias, textX, rowMatch, stateMatch, rowContext, meanPool, poolBias, present },
    rowText,
    M,
    R,
    T,
    zeroRow,
    noul: noul.instr.length > 0 ? noul : null,
    choice: choice.slots.length > 0 ? choice : null,
    score: score.slots.length > 0 ? score : null,
    order,
  };
}

/** Disposes a batch's tensors (when it was built outside tf.tidy). */
export function disposeBatch(b: ReaderBatch): void {
  tf.dispose([b.stateX, b.stateBias, b.textX, b.rowMatch, b.stateMatch, b.rowContext, b.meanPool, b.poolBias, b.present]);
}
