/**
 * The reader's forward pass (forward.ts, from the description of architecture.ts) as one ONNX
 * graph, built in memory from a loaded reader's parameters (no second copy of the weights in the
 * package), every ensemble member in the one graph so a chunk of questions is one session run.
 *
 * It reads one group (one state and some questions: serving's batches, logits.ts) as the arrays
 * `readerBatchData` builds in JavaScript, with the group axis dropped, so every product is a
 * two-dimensional one onnxruntime can fuse with its bias, and the heads' axis leads attention:
 *
 * - `stateX` [M, 512], `stateBias` [1, M], `textX` [R, 512], `rowMatch` [R, 1], `stateMatch`
 *   [R, M], `rowContext` [R, T], `meanPool` [T, R], `poolBias` [T, R], `present` [T, 1], and
 *   `rowText` int64 [R] (each row's text, T for padding);
 * - per type, the readout rows (int64 indices into the T + 1 readout rows, the last all zeros)
 *   and the base heads' log-probabilities: `noulInstr`, `noulYes`, `noulNo`, `noulCrit`,
 *   `noulBase` [N]; `choiceLine`, `choiceInstr`, `choiceBase` [C]; `scoreLine`, `scoreInstr`,
 *   `scoreBase` [S], `scoreExtra` [S, 2], and for the ordinal term `scoreSigned`, `scoreScale`
 *   [S], `scoreMirror`, `scoreQuestion` int64 [S] (batch.ts' `ScoreLevels`), and the field-pair
 *   inputs `choicePair` [C, 2], `scorePair` [S, 2]. A type with no question is fed one dummy row
 *   (onnxruntime's kernels are not all safe on empty tensors) and its output ignored.
 *
 * Outputs per member m: bounded logits `noul_m` [N], `choice_m` [C], `score_m` [S], as
 * `readerForward` returns them. M, R, T, N, C and S are symbolic, so one session serves every
 * request. Products in another order than tfjs' differ in float32 rounding only (the parity
 * test bounds them).
 * @module
 */
import { FLOAT, GraphBuilder, INT64, valueInfo } from '../../onnx/graph-builder.js';
import { BOUND, FIELD_PAIR_BASE, INPUT, readoutWidth, type ReaderShape } from './architecture.js';
import type { ReaderParams } from './forward.js';

/** forward.ts' layer-norm epsilon and soft-maximum sharpness. */
const EPS = 1e-5;
const BETA = 20;

/** Float inputs by name with their dimensions (symbolic names shared by every member). */
export const READER_FLOAT_INPUTS: Record<string, (string | number)[]> = {
  stateX: ['M', INPUT],
  stateBias: [1, 'M'],
  textX: ['R', INPUT],
  rowMatch: ['R', 1],
  stateMatch: ['R', 'M'],
  rowContext: ['R', 'T'],
  meanPool: ['T', 'R'],
  poolBias: ['T', 'R'],
  present: ['T', 1],
  noulCrit: ['N'],
  noulBase: ['N'],
  choiceBase: ['C'],
  scoreBase: ['S'],
  scoreExtra: ['S', 2],
  scoreSigned: ['S'],
  scoreScale: ['S'],
  choicePair: ['C', 2],
  scorePair: ['S', 2],
};
export const READER_INDEX_INPUTS: Record<string, string> = {
  rowText: 'R',
  noulInstr: 'N',
  noulYes: 'N',
  noulNo: 'N',
  choiceLine: 'C',
  choiceInstr: 'C',
  scoreLine: 'S',
  scoreInstr: 'S',
  scoreMirror: 'S',
  scoreQuestion: 'S',
};

/** Values every member reads: normalised inputs, the row cues, and per-text sums over rows. */
interface Shared {
  stateN: string;
  textN: string;
  cues: string;
  /** [R, 1] 1 / (tokens of the row's text); 0 for padding rows. */
  rowWeight: string;
  /** Sums of rows [R, width] per text, [T, width], in row order. */
  segmentSum: (rows: string, width: number) => string;
}

/** Adds the nodes of one member; returns nothing, its outputs are named by `m`. */
function member(g: GraphBuilder, shape: ReaderShape, p: ReaderParams, m: number, shared: Shared): void {
  const d = shape.width;
  const h = shape.heads;
  const dh = d / h;
  const values = (name: string) => p[name]!.dataSync() as Float32Array;
  const W = (name: string) => g.floats(values(name), p[name]!.shape);
  const layerNorm = (x: string, gain: string, bias: string) => g.op('LayerNormalization', [x, W(gain), W(bias)], { axis: -1, epsilon: { float: EPS } });
  const heads = (x: string, perm: number[]) => g.op('Transpose', [g.op('Reshape', [x, g.int64s([-1, h, dh])])], { perm });

  const state = g.op('Gemm', [shared.stateN, W('in.state.w'), W('in.state.b')]);
  // The three row cues (match, best, soft cosine) times their learned vectors as one product.
  const cueWeights = new Float32Array(3 * d);
  ['in.text.match', 'in.text.best', 'in.text.soft'].forEach((n, i) => cueWeights.set(values(n), i * d));
  const x0 = g.op('Gemm', [shared.cues, g.floats(cueWeights, [3, d]), g.op('Gemm', [shared.textN, W('in.text.w'), W('in.text.b')])]);
  // Each row has one context text at most, so this product adds exact zeros to one term.
  const context = g.op('MatMul', ['rowContext', shared.segmentSum(g.op('Mul', [x0, shared.rowWeight]), d)]);
  let x = g.op('Gemm', [context, W('in.context'), x0]);

  for (let l = 0; l < shape.layers; l++) {
    const pre = `l${l}.`;
    const y = layerNorm(x, `${pre}ln1.g`, `${pre}ln1.b`);
    // Queries scaled through their weights (forward.ts scales the product: float32 rounding apart, the same).
    const q = heads(g.op('MatMul', [y, g.floats(values(`${pre}q`).map((v) => v / Math.sqrt(dh)), [d, d])]), [1, 0, 2]); // [h, R, dh]
    const k = heads(g.op('MatMul', [state, W(`${pre}sk`)]), [1, 2, 0]); // [h, dh, M]
    const v = heads(g.op('MatMul', [state, W(`${pre}sv`)]), [1, 0, 2]); // [h, M, dh]
    const match = g.op('Mul', ['stateMatch', g.floats(values(`${pre}match`), [h, 1, 1])]); // [h, R, M]
    const scores = g.op('Add', [g.op('Add', [g.op('MatMul', [q, k]), 'stateBias']), match]);
    const mixed = g.op('MatMul', [g.op('Softmax', [scores], { axis: -1 }), v]); // [h, R, dh]
    const merged = g.op('Reshape', [g.op('Transpose', [mixed], { perm: [1, 0, 2] }), g.int64s([-1, d])]);
    const x1 = g.op('Gemm', [merged, W(`${pre}o`), x]);
    const f = g.op('Relu', [g.op('Gemm', [layerNorm(x1, `${pre}ln2.g`, `${pre}ln2.b`), W(`${pre}f1`), W(`${pre}f1b`)])]);
    x = g.op('Add', [x1, g.op('Gemm', [f, W(`${pre}f2`), W(`${pre}f2b`)])]);
  }

  // Readouts: masked mean and attention pooling per text, zeros for empty texts, a zero row last.
  const final = layerNorm(x, 'out.ln.g', 'out.ln.b'); // [R, d]
  const s = g.op('MatMul', [final, W('out.pool')]); // [R, 1]
  // Each row's pooling weight relative to its text's largest score (a maximum is exact in any order).
  const maxes = g.op('ReduceMax', [g.op('Add', [g.op('Reshape', [s, g.int64s([1, -1])]), 'poolBias'])], { axes: [-1], keepdims: 1 }); // [T, 1]
  const rowMax = g.op('Gather', [g.op('Concat', [maxes, g.fill(1e9, [1, 1])], { axis: 0 }), 'rowText'], { axis: 0 }); // padding rows: exp(-1e9) = 0
  const e = g.op('Exp', [g.op('Sub', [s, rowMax])]);
  const sums = shared.segmentSum(g.op('Concat', [g.op('Mul', [final, shared.rowWeight]), g.op('Mul', [final, e]), e], { axis: 1 }), 2 * d + 1);
  const part = (from: number, to: number) => g.op('Slice', [sums, g.int64s([from]), g.int64s([to]), g.int64s([1])]);
  // A text with rows has a weight sum of at least 1 (its top row's exp(0)); an empty one 0, read as 1 (its readout is zeros).
  const pooled = g.op('Div', [part(d, 2 * d), g.op('Max', [part(2 * d, 2 * d + 1), g.fill(1)])]);
  const r = readoutWidth(shape);
  const v = g.op('Concat', [g.op('Mul', [g.op('Concat', [part(0, d), pooled], { axis: 1 }), 'present']), g.fill(0, [1, r])], { axis: 0 });

  const mlp = (prefix: string, input: string) => {
    const hidden = g.op('LeakyRelu', [g.op('Gemm', [input, W(`${prefix}.w1`), W(`${prefix}.b1`)])], { alpha: { float: 0.1 } });
    const out = p[`${prefix}.b2`] ? g.op('Gemm', [hidden, W(`${prefix}.w2`), W(`${prefix}.b2`)]) : g.op('MatMul', [hidden, W(`${prefix}.w2`)]);
    return g.op('Reshape', [out, g.int64s([-1])]);
  };
  const rows = (index: string) => g.op('Gather', [v, index], { axis: 0 });
  const pair = (line: string, instr: string) => {
    const [a, b] = [rows(line), rows(instr)];
    return g.op('Concat', [a, g.op('Mul', [a, b]), b], { axis: 1 });
  };
  const bound = (x: string, base: string, name: string) => {
    const limit = g.fill(BOUND);
    return g.op('Mul', [g.op('Tanh', [g.op('Div', [g.op('Add', [base, x]), limit])]), limit], {}, [name]);
  };

  const plain = mlp('noul', rows('noulInstr'));
  const criteria = g.op('Sub', [mlp('crit', pair('noulYes', 'noulInstr')), mlp('crit', pair('noulNo', 'noulInstr'))]);
  // With criteria, only the criteria's difference: swapping them negates the logit exactly.
  const delta = g.op('Add', [g.op('Mul', [g.op('Sub', [g.fill(1), 'noulCrit']), plain]), g.op('Mul', ['noulCrit', criteria])]);
  bound(delta, 'noulBase', `noul_${m}`);
  // The field-pair term (forward.ts' `fieldPairTerm`): ((FIELD_PAIR_BASE + a) . [c, 1]) g_k per line.
  const fieldPairTerm = (features: string, input: string, coefficients: string) => {
    const coef = g.op('Reshape', [g.op('MatMul', [input, g.floats(values(coefficients).map((a, i) => a + FIELD_PAIR_BASE[i]!), [2, 1])]), g.int64s([-1])]);
    return g.op('Mul', [coef, mlp('pair.g', features)]);
  };
  const optionPair = pair('choiceLine', 'choiceInstr');
  bound(g.op('Add', [mlp('choice', optionPair), fieldPairTerm(optionPair, 'choicePair', 'pair.choice')]), 'choiceBase', `choice_${m}`);
  const levelPair = pair('scoreLine', 'scoreInstr');
  const independent = mlp('score', g.op('Concat', [levelPair, 'scoreExtra'], { axis: 1 }));
  // The ordinal term (forward.ts' `ordinalTerm`): summands p_k (h_k - h_mirror) that a reversal
  // negates exactly, summed per question in level order by a scatter-add, as tfjs sums them.
  const level = mlp('ord.h', levelPair);
  const summands = g.op('Mul', ['scoreSigned', g.op('Sub', [level, g.op('Gather', [level, 'scoreMirror'], { axis: 0 })])]);
  const zeros = g.op('Expand', [g.fill(0, [1]), g.op('Shape', [summands])]); // [S] >= questions
  const perQuestion = g.op('ScatterElements', [zeros, 'scoreQuestion', summands], { axis: 0, reduction: 'add' });
  const direction = g.op('Mul', [g.op('Gather', [perQuestion, 'scoreQuestion'], { axis: 0 }), 'scoreScale']);
  const term = g.op('Mul', [g.op('Mul', [direction, 'scoreSigned']), mlp('ord.s', rows('scoreInstr'))]);
  bound(g.op('Add', [g.op('Add', [independent, term]), fieldPairTerm(levelPair, 'scorePair', 'pair.score')]), 'scoreBase', `score_${m}`);
}

/** The reader's model for these members (see the module comment). */
export function readerModel(shape: ReaderShape, members: readonly ReaderParams[]): Uint8Array {
  const g = new GraphBuilder();
  const normalise = (x: string) => g.op('LayerNormalization', [x, g.fill(1, [INPUT]), g.fill(0, [INPUT])], { axis: -1, epsilon: { float: EPS } });
  // Parameter-free inputs, shared by the members (forward.ts' `sharedInputs`).
  const stateN = normalise('stateX');
  const textN = normalise('textX');
  const unit = (x: string) => {
    const norm = g.op('Sqrt', [g.op('Add', [g.op('ReduceSum', [g.op('Mul', [x, x]), g.int64s([-1])], { keepdims: 1 }), g.fill(1e-12)])]);
    return g.op('Div', [x, norm]);
  };
  const masked = g.op('Add', [g.op('Gemm', [unit('textX'), unit('stateX')], { transB: 1 }), 'stateBias']); // [R, M] cosines
  const floor = g.fill(-1);
  const best = g.op('Max', [g.op('ReduceMax', [masked], { axes: [-1], keepdims: 1 }), floor]);
  // Log-sum-exp with its maximum taken out (as tfjs computes it), over BETA times the cosines.
  const sharp = g.op('Mul', [masked, g.fill(BETA)]);
  const top = g.op('ReduceMax', [sharp], { axes: [-1], keepdims: 1 });
  const sum = g.op('ReduceSum', [g.op('Exp', [g.op('Sub', [sharp, top])]), g.int64s([-1])], { keepdims: 1 });
  const soft = g.op('Max', [g.op('Div', [g.op('Add', [top, g.op('Log', [sum])]), g.fill(BETA)]), floor]);
  const cues = g.op('Concat', ['rowMatch', best, soft], { axis: 1 }); // [R, 3]
  // Per-text sums over rows by a scatter-add, not a product with a [T, R] mask: onnxruntime's
  // products (and its Softmax) sum long rows in blocks and vector lanes, so a text's bits
  // depended on where its rows sat among the request's, and a question's answer on the other
  // questions (the engine's tests require equality). Scatter-add sums each text's rows in order.
  const rowWeight = g.op('Reshape', [g.op('ReduceSum', ['meanPool', g.int64s([0])], { keepdims: 0 }), g.int64s([-1, 1])]); // one non-zero per column
  const texts = g.op('Slice', [g.op('Shape', ['meanPool']), g.int64s([0]), g.int64s([1]), g.int64s([0])]); // [T]
  const segmentSum = (rows: string, width: number) => {
    const zeros = g.op('Expand', [g.fill(0, [1, 1]), g.op('Concat', [g.op('Add', [texts, g.int64s([1])]), g.int64s([width])], { axis: 0 })]); // [T + 1, width]
    const index = g.op('Expand', [g.op('Reshape', ['rowText', g.int64s([-1, 1])]), g.op('Shape', [rows])]);
    const summed = g.op('ScatterElements', [zeros, index, rows], { axis: 0, reduction: 'add' });
    return g.op('Slice', [summed, g.int64s([0]), texts, g.int64s([0])]); // padding rows went to slot T
  };
  members.forEach((p, m) => member(g, shape, p, m, { stateN, textN, cues, rowWeight, segmentSum }));
  const inputs = [
    ...Object.entries(READER_FLOAT_INPUTS).map(([name, dims]) => valueInfo(name, FLOAT, dims)),
    ...Object.entries(READER_INDEX_INPUTS).map(([name, dim]) => valueInfo(name, INT64, [dim])),
  ];
  const outputs = members.flatMap((_, m) => [valueInfo(`noul_${m}`, FLOAT, ['N']), valueInfo(`choice_${m}`, FLOAT, ['C']), valueInfo(`score_${m}`, FLOAT, ['S'])]);
  return g.model('evalmodel-reader', inputs, outputs);
}
