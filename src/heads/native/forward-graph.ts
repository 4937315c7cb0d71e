/**
 * Stage 2 of the trained heads (late.ts `forward`) as one ONNX graph for onnxruntime-node,
 * built in memory from the loaded parameters (no second copy of the weights in the package),
 * every ensemble member in the one graph so a chunk of questions is one session run.
 *
 * Inputs (forward-batch.ts builds them from the aligned texts):
 * - per text token row: `tokens`, `aligned` [F, 512], `bestSoft` [F, 5], `rowText` int64 [F]
 *   (its text; padding rows point one past the last text);
 * - per text: `fixed` [M, 12], `pooled` [M, 512];
 * - noul: `nInstr`, `nYes`, `nNo` int64 [N] (texts), `nHas` [N];
 * - choice and score lines: `cLine`/`sLine` int64 (texts), `cGroup`/`sGroup` int64 (question,
 *   numbered from 0 per type), `cInvK`/`sInvK` [., 1] (1 / outcomes), `cPairHas`, `cPairSim`
 *   [., 1]; score also `sLeft`, `sRight` int64 (neighbouring lines), `sNbW` [S, 2] (their
 *   weights), `sPos` [S, 2].
 * Outputs per member m: `noul_m` [N], `choice_m` [C], `score_m` [S], as `forward` gives them.
 *
 * Where tfjs multiplies by 0/1 (or 1/K) membership matrices, this graph gathers rows and sums
 * them with ScatterElements, in row order, so a text's or question's values never depend on
 * where it sits in the batch: the engine's tests require the same bits alone and batched.
 * As precautions (the tests pass here without them, on other CPUs the paths may differ) every
 * product has at least two rows (forward-batch.ts pads; MLAS has a one-row path) and at least 16
 * columns: one-column weights are repeated 16 times and the first column kept, so each output
 * element is one vector lane summed in a fixed order, and the importance's tanh and exp run on
 * whole vectors, never on a tail.
 * @module
 */
import { FLOAT, GraphBuilder, INT64, valueInfo } from '../../onnx/graph-builder.js';
import { HIDDEN, NFIXED, PER_TOKEN, VAL, type Params } from '../late.js';

/** Gain of the pair term (late.ts). */
const PAIR_GAIN = 8;
/** Columns a one-column weight is repeated to. */
const LANES = 16;

export const FORWARD_FLOAT_INPUTS: Record<string, (string | number)[]> = {
  tokens: ['F', HIDDEN],
  aligned: ['F', HIDDEN],
  bestSoft: ['F', PER_TOKEN],
  fixed: ['M', NFIXED],
  pooled: ['M', HIDDEN],
  nHas: ['N'],
  cInvK: ['C', 1],
  cPairHas: ['C', 1],
  cPairSim: ['C', 1],
  sInvK: ['S', 1],
  sNbW: ['S', 2],
  sPos: ['S', 2],
  sPairHas: ['S', 1],
  sPairSim: ['S', 1],
};
export const FORWARD_INDEX_INPUTS: Record<string, string> = {
  rowText: 'F',
  nInstr: 'N',
  nYes: 'N',
  nNo: 'N',
  cLine: 'C',
  cGroup: 'C',
  sLine: 'S',
  sGroup: 'S',
  sLeft: 'S',
  sRight: 'S',
};

/** The model of these members' stage 2 (see the module comment). */
export function forwardModel(members: readonly Params[]): Uint8Array {
  const g = new GraphBuilder();
  const slice = (x: string, from: number, to: number, axis = 1) => g.op('Slice', [x, g.int64s([from]), g.int64s([to]), g.int64s([axis])]);
  const rowsOf = (x: string) => g.op('Slice', [g.op('Shape', [x]), g.int64s([0]), g.int64s([1]), g.int64s([0])]); // [1]
  /** Sums of `rows` [K, width] into `count` [1] slots by `index` [K], each slot's rows in order. */
  const segmentSum = (rows: string, index: string, count: string, width: number) => {
    const zeros = g.op('Expand', [g.fill(0, [1, 1]), g.op('Concat', [count, g.int64s([width])], { axis: 0 })]);
    const at = g.op('Expand', [g.op('Reshape', [index, g.int64s([-1, 1])]), g.op('Shape', [rows])]);
    return g.op('ScatterElements', [zeros, at, rows], { axis: 0, reduction: 'add' });
  };
  const gather = (x: string, index: string) => g.op('Gather', [x, index], { axis: 0 });
  const texts = rowsOf('fixed');
  const textSlots = g.op('Add', [texts, g.int64s([1])]); // padding rows go to the last slot
  const shared = {
    nPooled: gather('pooled', 'nInstr'),
    cPooled: gather('pooled', 'cLine'),
    sPooled: gather('pooled', 'sLine'),
  };

  members.forEach((p, m) => {
    const values = (name: string) => p[name]!.dataSync() as Float32Array;
    const W = (name: string) => g.floats(values(name), p[name]!.shape);
    /** A [K, 1] weight repeated to [K, LANES]. */
    const wide = (name: string) => {
      const v = values(name);
      const out = new Float32Array(v.length * LANES);
      v.forEach((x, k) => out.fill(x, k * LANES, (k + 1) * LANES));
      return g.floats(out, [v.length, LANES]);
    };
    /** x [K, in] times a one-column weight, as [K] (first of the repeated columns). */
    const column = (x: string, name: string) => g.op('Reshape', [slice(g.op('MatMul', [x, wide(name)]), 0, 1), g.int64s([-1])]);
    const mlp = (x: string, w1: string, b1: string, w2: string, b2?: string) => {
      const h = g.op('Relu', [g.op('Gemm', [x, W(w1), W(b1)])]);
      const o = column(h, w2);
      return b2 ? g.op('Add', [o, W(b2)]) : o;
    };

    // Token importances, bounded so that exp never overflows, on whole vectors.
    const t = g.op('Div', [g.op('MatMul', ['tokens', wide('importance')]), g.fill(5)]);
    const imp = slice(g.op('Exp', [g.op('Mul', [g.op('Tanh', [t]), g.fill(5)])]), 0, 1); // [F, 1]
    const perRow = g.op('Concat', [imp, g.op('Mul', ['bestSoft', imp]), g.op('Mul', [g.op('MatMul', ['aligned', W('value')]), imp])], { axis: 1 }); // [F, 1 + 5 + V]
    const sums = segmentSum(perRow, 'rowText', textSlots, 1 + PER_TOKEN + VAL);
    const pooledW = g.op('Div', [slice(sums, 1, 1 + PER_TOKEN + VAL), g.op('Max', [slice(sums, 0, 1), g.fill(1e-9)])]);
    const f = g.op('Concat', ['fixed', g.op('Slice', [pooledW, g.int64s([0, 0]), g.op('Concat', [texts, g.int64s([PER_TOKEN])], { axis: 0 }), g.int64s([0, 1])])], { axis: 1 }); // [M, NF]
    const r = slice(pooledW, PER_TOKEN, PER_TOKEN + VAL); // [M + 1, V]

    // noul
    const fi = gather(f, 'nInstr');
    const q = g.op('Mul', [gather(r, 'nInstr'), g.op('MatMul', [shared.nPooled, W('nQuery')])]);
    const prior = g.op('MatMul', [shared.nPooled, W('nPrior')]);
    const base = mlp(g.op('Concat', [fi, q, prior], { axis: 1 }), 'n1', 'n1b', 'n2', 'n2b');
    const crit = column(g.op('Sub', [gather(f, 'nYes'), gather(f, 'nNo')]), 'nCrit');
    const gateValue = values('nGate')[0]!;
    const sig = Math.fround(1 / (1 + Math.exp(-gateValue)));
    const gate = g.op('Sub', [g.fill(1), g.op('Mul', ['nHas', g.fill(sig)])]);
    g.op('Add', [g.op('Mul', [base, gate]), g.op('Mul', [crit, 'nHas'])], {}, [`noul_${m}`]);

    // choice and score: per outcome line, centred on the question's mean line.
    const lines = (prefix: 'c' | 's', lineParam: string) => {
      const fl = gather(f, `${prefix}Line`);
      const meanOf = segmentSum(g.op('Mul', [fl, `${prefix}InvK`]), `${prefix}Group`, rowsOf(fl), NFIXED + PER_TOKEN);
      const centred = g.op('Sub', [fl, gather(meanOf, `${prefix}Group`)]);
      const pl = prefix === 'c' ? shared.cPooled : shared.sPooled;
      const inter = g.op('Mul', [gather(r, `${prefix}Line`), g.op('MatMul', [pl, W(lineParam)])]);
      return { fl, centred, pl, inter };
    };
    const pairTerm = (prefix: 'c' | 's', pl: string, direction: string, at: string) => {
      const coef = g.op('Mul', [g.op('Sub', [`${prefix}PairSim`, g.op('Mul', [`${prefix}PairHas`, W(at)])]), g.fill(PAIR_GAIN)]);
      return g.op('Reshape', [g.op('Mul', [coef, slice(g.op('MatMul', [pl, wide(direction)]), 0, 1)]), g.int64s([-1])]);
    };
    const c = lines('c', 'cLine');
    g.op('Add', [mlp(g.op('Concat', [c.fl, c.centred, c.inter], { axis: 1 }), 'c1', 'c1b', 'c2'), pairTerm('c', c.pl, 'cPair', 'cPairAt')], {}, [`choice_${m}`]);
    const s = lines('s', 'sLine');
    const nbW = (k: number) => slice('sNbW', k, k + 1);
    const nb = g.op('Add', [g.op('Mul', [nbW(0), gather(s.centred, 'sLeft')]), g.op('Mul', [nbW(1), gather(s.centred, 'sRight')])]);
    const features = g.op('Concat', [s.fl, s.centred, nb, s.inter, 'sPos'], { axis: 1 });
    g.op('Add', [mlp(features, 's1', 's1b', 's2'), pairTerm('s', s.pl, 'sPair', 'sPairAt')], {}, [`score_${m}`]);
  });

  const inputs = [
    ...Object.entries(FORWARD_FLOAT_INPUTS).map(([name, dims]) => valueInfo(name, FLOAT, dims)),
    ...Object.entries(FORWARD_INDEX_INPUTS).map(([name, dim]) => valueInfo(name, INT64, [dim])),
  ];
  const outputs = members.flatMap((_, m) => [valueInfo(`noul_${m}`, FLOAT, ['N']), valueInfo(`choice_${m}`, FLOAT, ['C']), valueInfo(`score_${m}`, FLOAT, ['S'])]);
  return g.model('evalmodel-heads-forward', inputs, outputs);
}
