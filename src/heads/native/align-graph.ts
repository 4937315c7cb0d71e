/**
 * Stage 1's tensor work (late.ts `alignCore`, align-kernel.ts) as one parameter-free ONNX graph
 * for onnxruntime-node: the state's token states normalised, its phrase-span vectors, and every
 * text token's cosines with the state's tokens reduced to its best match, soft maximum,
 * soft-aligned state vector and negation share, plus each text's span scores.
 *
 * Inputs (the runner pads them, see `alignPadding`):
 * - `stateX` [P, 512]: the state's raw token states, zero rows past its n tokens; `colBias`
 *   [1, P]: 0 for a token, -Infinity for a padding column (drops out of every maximum, sum and
 *   attention, as the wasm kernel's padded columns do); `negation` [P, 1];
 * - `textX` [R, 512]: the texts' normalised tokens; `textMeans` [T, 512]: their normalised means;
 * - `spanCount` int64 [1]: the state's phrase spans S.
 * Outputs: `best`, `soft`, `negAtt` [R], `argmax` int64 [R], `aligned` [R, 512], `spanBest`,
 * `spanSoft` [T].
 *
 * Bits alone and in a batch: every output row depends on its own text token only. Products
 * (MLAS) sum each row's terms in an order set by the state's size alone; the soft maximum and
 * the attention are LogSoftmax and Softmax, computed row by row; the only other reductions
 * over a row are maxima (exact) and ReduceSum over rows whose width is a multiple of 16 floats
 * (P, 512), so every row starts at the same vector alignment. A batch of one row is padded to
 * two, a precaution (MLAS has a one-row product path; the tests pass here without the padding).
 * The session runs on one intra-op thread (runner.ts says why).
 *
 * Phrase spans: span i covers tokens [6i, 6i + 12); P is a multiple of 48, so the normalised
 * state reshapes into blocks of 6 tokens and span i is block i + block i + 1 (then normalised:
 * the wasm path's 1/len weight only scales it, float rounding apart).
 * @module
 */
import { FLOAT, GraphBuilder, INT64, valueInfo } from '../../onnx/graph-builder.js';
import { BETA, HIDDEN, SPAN } from '../late.js';

const BLOCK = SPAN / 2;

/** The padded state length: a multiple of 48 (6-token blocks, 16-float rows), with a block past the last span. */
export function alignPadding(n: number, spans: number): number {
  return Math.ceil(Math.max(n, BLOCK * (spans + 1)) / 48) * 48;
}

/** The alignment model (see the module comment). */
export function alignModel(): Uint8Array {
  const g = new GraphBuilder();
  /** Rows scaled to unit length: x / sqrt(max(sum x², 1e-12)) (text-norms.ts `rowNormalise`). */
  const unit = (x: string, name?: string) => {
    const sq = g.op('ReduceSum', [g.op('Mul', [x, x]), g.int64s([-1])], { keepdims: 1 });
    return g.op('Div', [x, g.op('Sqrt', [g.op('Max', [sq, g.fill(1e-12)])])], {}, name ? [name] : undefined);
  };
  const lastMax = (x: string) => g.op('ReduceMax', [x], { axes: [-1], keepdims: 0 });
  /** Log-sum-exp / BETA of BETA x: the maximum of x BETA less that of its LogSoftmax (-log of the sum). */
  const softMax = (sharp: string) => g.op('Div', [g.op('Sub', [lastMax(sharp), lastMax(g.op('LogSoftmax', [sharp], { axis: -1 }))]), g.fill(BETA)]);

  const stateN = unit('stateX'); // [P, H]
  const sim = g.op('Gemm', ['textX', stateN, 'colBias'], { transB: 1 }); // [R, P]
  const sharp = g.op('Mul', [sim, g.fill(BETA)]);
  const att = g.op('Softmax', [sharp], { axis: -1 });
  // Attention x [states | negation] as one product, then split.
  const read = g.op('MatMul', [att, g.op('Concat', [stateN, 'negation'], { axis: 1 })]); // [R, H + 1]
  const part = (from: number, to: number) => g.op('Slice', [read, g.int64s([from]), g.int64s([to]), g.int64s([1])]);
  unit(part(0, HIDDEN), 'aligned');
  g.op('Reshape', [part(HIDDEN, HIDDEN + 1), g.int64s([-1])], {}, ['negAtt']);
  g.op('Identity', [lastMax(sim)], {}, ['best']);
  g.op('Identity', [softMax(sharp)], {}, ['soft']);
  g.op('ArgMax', [sim], { axis: -1, keepdims: 0 }, ['argmax']);

  const blocks = g.op('ReduceSum', [g.op('Reshape', [stateN, g.int64s([-1, BLOCK, HIDDEN])]), g.int64s([1])], { keepdims: 0 }); // [P / 6, H]
  const after = g.op('Add', ['spanCount', g.int64s([1])]);
  const spans = unit(g.op('Add', [g.op('Slice', [blocks, g.int64s([0]), 'spanCount', g.int64s([0])]), g.op('Slice', [blocks, g.int64s([1]), after, g.int64s([0])])]));
  const spanSim = g.op('Gemm', ['textMeans', spans], { transB: 1 }); // [T, S]
  g.op('Identity', [lastMax(spanSim)], {}, ['spanBest']);
  g.op('Identity', [softMax(g.op('Mul', [spanSim, g.fill(BETA)]))], {}, ['spanSoft']);

  const inputs = [
    valueInfo('stateX', FLOAT, ['P', HIDDEN]),
    valueInfo('colBias', FLOAT, [1, 'P']),
    valueInfo('negation', FLOAT, ['P', 1]),
    valueInfo('textX', FLOAT, ['R', HIDDEN]),
    valueInfo('textMeans', FLOAT, ['T', HIDDEN]),
    valueInfo('spanCount', INT64, [1]),
  ];
  const outputs = [
    valueInfo('best', FLOAT, ['R']),
    valueInfo('soft', FLOAT, ['R']),
    valueInfo('negAtt', FLOAT, ['R']),
    valueInfo('argmax', INT64, ['R']),
    valueInfo('aligned', FLOAT, ['R', HIDDEN]),
    valueInfo('spanBest', FLOAT, ['T']),
    valueInfo('spanSoft', FLOAT, ['T']),
  ];
  return g.model('evalmodel-heads-align', inputs, outputs);
}
