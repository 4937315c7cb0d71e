/**
 * The encoder as ONNX graphs, built in memory from the plan of architecture.ts (the same folded
 * weights the tfjs path computes with; no second copy ships in the package) and written with
 * the shared GraphBuilder (onnx/graph-builder.ts). Two models:
 *
 * - the encoder: `ids` int64 [length] (one window, positions 0..length-1) to `states`
 *   [length, hidden] and `sums` [1, hidden] (the sum of its token states), the step list of
 *   architecture.ts, in two dimensions throughout so that onnxruntime fuses each product with
 *   its bias (and ReLU) into one Gemm: a layer's queries, keys and values as one [width, 3 x
 *   width] product split into heads along the columns, each head's scores as a Gemm with the
 *   keys transposed (no Transpose node; onnxruntime's profile of the first, batched 3-D graph put
 *   its transposes at 5% of a window, though the two graphs then measured the same CPU time);
 * - the pooler: `means` [texts, hidden] to unit-length `pooled` [texts, hidden].
 *
 * Opset 17 (LayerNormalization is an ONNX op there; with scale 1 and bias 0 it is the plan's
 * `normalise`).
 * @module
 */
import type { Dense } from './layer.js';
import type { EncoderPlan } from './architecture.js';
import { ENCODER_SHAPE } from './weights.js';
import { FLOAT, GraphBuilder, INT64, valueInfo } from '../onnx/graph-builder.js';

/** Host copies of dense layers laid side by side: [rows, sum of columns] and the biases. */
function sideBySide(parts: readonly Dense[]): { kernel: Float32Array; bias: Float32Array; rows: number; cols: number } {
  const rows = parts[0]!.kernel.shape[0];
  const widths = parts.map((p) => p.kernel.shape[1]);
  const cols = widths.reduce((a, b) => a + b, 0);
  const kernel = new Float32Array(rows * cols);
  const bias = new Float32Array(cols);
  let at = 0;
  parts.forEach((p, i) => {
    const k = p.kernel.dataSync() as Float32Array;
    const w = widths[i]!;
    for (let r = 0; r < rows; r++) kernel.set(k.subarray(r * w, (r + 1) * w), r * cols + at);
    bias.set(p.bias.dataSync() as Float32Array, at);
    at += w;
  });
  return { kernel, bias, rows, cols };
}

function weightsOf(g: GraphBuilder, parts: readonly Dense[]): { kernel: string; bias: string } {
  const s = sideBySide(parts);
  return { kernel: g.floats(s.kernel, [s.rows, s.cols]), bias: g.floats(s.bias, [s.cols]) };
}

/** The encoder model (see the module comment). */
export function encoderModel(plan: EncoderPlan): Uint8Array {
  const g = new GraphBuilder();
  const hidden = ENCODER_SHAPE.hiddenDim;
  const epsilon = { float: ENCODER_SHAPE.layerNormEpsilon };
  const embeddings = g.floats(plan.embeddings, [plan.vocab, plan.dim]);
  const timing = g.floats(plan.timing, [ENCODER_SHAPE.maxTokens, plan.dim]);
  const length = g.op('Shape', ['ids']);
  const positions = g.op('Slice', [timing, g.int64s([0]), length, g.int64s([0])]);
  let x = g.op('Add', [g.op('Gather', [embeddings, 'ids']), positions]);
  const unitNorm = new Map<number, { scale: string; bias: string }>();
  const normalise = (v: string, width: number) => {
    let n = unitNorm.get(width);
    if (!n) unitNorm.set(width, (n = { scale: g.floats(new Float32Array(width).fill(1), [width]), bias: g.floats(new Float32Array(width), [width]) }));
    return g.op('LayerNormalization', [v, n.scale, n.bias], { axis: -1, epsilon });
  };
  plan.layers.forEach((layer, index) => {
    const { width, heads } = layer;
    const depth = width / heads;
    const z = normalise(x, width);
    const qkv = g.dense(z, weightsOf(g, [...layer.query, ...layer.key, ...layer.value]));
    // Columns: every head's queries, then every head's keys, then values.
    const parts = Array.from({ length: 3 * heads }, (_, i) => `l${index}_part${i}`);
    g.op('Split', [qkv, g.int64s(parts.map(() => depth))], { axis: 1 }, parts);
    const contexts = Array.from({ length: heads }, (_, h) => {
      const scores = g.op('Gemm', [parts[h]!, parts[heads + h]!], { transB: 1 });
      return g.op('MatMul', [g.op('Softmax', [scores], { axis: -1 }), parts[2 * heads + h]!]);
    });
    const joined = g.op('Concat', contexts, { axis: 1 });
    const residual = layer.residual ? g.dense(x, weightsOf(g, [layer.residual])) : x;
    const attended = g.op('Add', [g.dense(joined, weightsOf(g, [layer.out])), residual]);
    const ffn = g.dense(g.dense(normalise(attended, layer.ffnIn.kernel.shape[0]), weightsOf(g, [layer.ffnIn]), true), weightsOf(g, [layer.ffnOut]));
    x = g.op('Add', [attended, ffn], {}, index === plan.layers.length - 1 ? ['states'] : undefined);
  });
  g.op('ReduceSum', ['states', g.int64s([0])], { keepdims: 1 }, ['sums']);
  return g.model(
    'evalmodel-encoder',
    [valueInfo('ids', INT64, ['length'])],
    [valueInfo('states', FLOAT, ['length', hidden]), valueInfo('sums', FLOAT, [1, hidden])],
  );
}

/** The pooler model: `means` [texts, hidden] -> l2normalise(tanh(means Pooler)) as `pooled`. */
export function poolerModel(plan: EncoderPlan): Uint8Array {
  const g = new GraphBuilder();
  const hidden = ENCODER_SHAPE.hiddenDim;
  const projected = g.op('Tanh', [g.dense('means', weightsOf(g, [plan.pooler]))]);
  const squares = g.op('ReduceSum', [g.op('Mul', [projected, projected]), g.int64s([-1])], { keepdims: 1 });
  const norm = g.op('Sqrt', [g.op('Max', [squares, g.floats(new Float32Array([1e-12]), [])])]);
  g.op('Div', [projected, norm], {}, ['pooled']);
  return g.model('evalmodel-pooler', [valueInfo('means', FLOAT, ['texts', hidden])], [valueInfo('pooled', FLOAT, ['texts', hidden])]);
}

/**
 * A lone product `a` [rows, k] x a constant [k, n] (+ bias) as `y`: bench/speed measures
 * onnxruntime's peak rate on it, the figure the encoder's GFLOP/s are compared with.
 */
export function productModel(k: number, n: number, seed = 1): Uint8Array {
  const g = new GraphBuilder();
  let s = seed;
  const random = (count: number) => Float32Array.from({ length: count }, () => ((s = (s * 16_807) % 2_147_483_647) / 2_147_483_647) - 0.5);
  g.op('Add', [g.op('MatMul', ['a', g.floats(random(k * n), [k, n])]), g.floats(random(n), [n])], {}, ['y']);
  return g.model('evalmodel-product', [valueInfo('a', FLOAT, ['rows', k])], [valueInfo('y', FLOAT, ['rows', n])]);
}
