/**
 * The trained heads' own time per jevbench-sample request (new state, known rubric), on
 * onnxruntime-node against their tfjs path, on one engine whose encoder runs on
 * onnxruntime-node. Passes alternate the two heads backends (`setNativeHeadsEnabled`), so a
 * change in the machine's load falls on both. Per request: the request's wall and CPU time, the
 * heads' logits (alignment and the members' forward pass, `requestLogits` or its native twin) in
 * CPU and wall time; then on the captured inputs of the last pass, the two paths alone, the tfjs
 * path's stage 1 (`alignTexts`) alone, and the native path's parts one by one: the state's
 * token-id cues, alignment's JavaScript before and after its graph, the graph's run, the batch's
 * index arrays (the forward run is the rest of the native total).
 *
 *   node dist/bench/speed/heads.js [--passes 2]
 * @module
 */
import { parseArgs } from 'node:util';
import { textCues } from '../../src/heads/cues.js';
import { alignTexts, finishAlignment, planAlignment, type AlignCore, type AlignPlan, type Params, type TextRep } from '../../src/heads/late.js';
import { forwardData } from '../../src/heads/native/forward-batch.js';
import { OnnxHeads } from '../../src/heads/native/runner.js';
import { setNativeHeadsEnabled, type HeadsLogitsFn } from '../../src/heads/native/backend.js';
import { batchQuestionsOf, textsOf, type QuestionInput } from '../../src/heads/request-logits.js';
import { TrainedHeadsRunner } from '../../src/heads/runner.js';
import type { TrainedHeadsSpec } from '../../src/heads/trained.js';
import { withNonce } from './inputs.js';
import { loadAverages, nativeAB } from './native-ab.js';
import { cpuNow } from './machine.js';
import { median } from './report.js';

const { values: args } = parseArgs({ options: { passes: { type: 'string', default: '2' } }, strict: true });
const passes = Math.max(1, Number(args.passes));

/** Inputs of the heads' logits seen on each request, with the function that served them. */
let captured: { fn: HeadsLogitsFn; state: TextRep; questions: readonly QuestionInput[] }[] = [];
const spent = { cpu: 0, wall: 0 };
let members: readonly Params[] = [];
type WithLogitsOf = { logitsOf(spec: TrainedHeadsSpec): Promise<HeadsLogitsFn>; heads(spec: TrainedHeadsSpec): { members: Params[] } };
const proto = TrainedHeadsRunner.prototype as unknown as WithLogitsOf;
const logitsOf = proto.logitsOf;
proto.logitsOf = async function (this: WithLogitsOf, spec) {
  const fn = await logitsOf.call(this, spec);
  members = this.heads(spec).members;
  return async (state, questions) => {
    captured.push({ fn, state, questions });
    const [cpu, wall] = [cpuNow(), performance.now()];
    try {
      return await fn(state, questions);
    } finally {
      spent.cpu += cpuNow() - cpu;
      spent.wall += performance.now() - wall;
    }
  };
};

const { cases, engine } = await nativeAB(setNativeHeadsEnabled);
type Row = { total: number; cpu: number; headsCpu: number; headsWall: number };
const rows = { native: [] as Row[], tfjs: [] as Row[] };
const last = { native: [] as typeof captured, tfjs: [] as typeof captured };
for (let pass = 0; pass < 2 * passes; pass++) {
  const native = pass % 2 === 0;
  setNativeHeadsEnabled(native);
  captured = [];
  for (const c of cases) {
    Object.assign(spent, { cpu: 0, wall: 0 });
    const [start, cpu] = [performance.now(), cpuNow()];
    await engine.evaluate(withNonce(c.state, pass), c.questions);
    (native ? rows.native : rows.tfjs).push({ total: performance.now() - start, cpu: cpuNow() - cpu, headsCpu: spent.cpu, headsWall: spent.wall });
  }
  last[native ? 'native' : 'tfjs'] = captured;
}
const heads = engine.stats().heads;
await engine.close();

// The two paths alone on the same inputs (the last native pass'), alternated per request.
const alone = { native: [] as number[], tfjs: [] as number[], align: [] as number[] };
for (let round = 0; round < passes; round++) {
  for (let i = 0; i < last.native.length; i++) {
    const n = last.native[i]!;
    const t = last.tfjs[i]!;
    let start = cpuNow();
    await n.fn(n.state, n.questions);
    alone.native.push(cpuNow() - start);
    start = cpuNow();
    await t.fn(n.state, n.questions);
    alone.tfjs.push(cpuNow() - start);
    start = cpuNow();
    alignTexts(n.state, n.questions.flatMap(textsOf));
    alone.align.push(cpuNow() - start);
  }
}
// The native path's parts, on the same inputs (`core` is the runner's graph run, private).
const ort = await OnnxHeads.create(members);
const core = (plan: AlignPlan) => (ort as unknown as { core(p: AlignPlan): Promise<AlignCore> }).core(plan);
const parts = { cues: [] as number[], plan: [] as number[], run: [] as number[], finish: [] as number[], arrays: [] as number[], total: [] as number[] };
for (let round = 0; round < passes; round++) {
  for (const { state, questions } of last.native) {
    const texts = questions.flatMap(textsOf);
    // A copy of the ids: the cues are memoised per ids array, as per request in serving.
    const fresh = { ...state, ids: [...(state.ids ?? [])] };
    let start = cpuNow();
    textCues(fresh.ids);
    parts.cues.push(cpuNow() - start);
    start = cpuNow();
    const plan = planAlignment(fresh, texts);
    parts.plan.push(cpuNow() - start);
    if (!plan.tensorWork) continue;
    start = cpuNow();
    const out = await core(plan);
    parts.run.push(cpuNow() - start);
    start = cpuNow();
    const aligned = finishAlignment(plan, out);
    parts.finish.push(cpuNow() - start);
    start = cpuNow();
    forwardData(batchQuestionsOf(questions, aligned));
    parts.arrays.push(cpuNow() - start);
    const again = { ...state, ids: [...(state.ids ?? [])] };
    start = cpuNow();
    await ort.logits(again, questions);
    parts.total.push(cpuNow() - start);
  }
}
ort.dispose();
const m = (xs: number[]) => median(xs).toFixed(2);
console.log(`jevbench-sample, new state + known rubric, ${cases.length} requests x ${passes} passes per heads backend, encoder on onnxruntime-node; engine.stats().heads: ${JSON.stringify(heads)}`);
for (const k of ['native', 'tfjs'] as const) {
  const r = rows[k];
  console.log(
    `  heads on ${k === 'native' ? 'onnxruntime-node' : 'tfjs (wasm)'}: request p50 ${m(r.map((x) => x.total))} ms (CPU ${m(r.map((x) => x.cpu))} ms); heads' logits p50 ${m(r.map((x) => x.headsWall))} ms wall, ${m(r.map((x) => x.headsCpu))} ms CPU; alone on the same inputs ${m(alone[k])} ms CPU`,
  );
}
console.log(`  of the tfjs path, stage 1 (alignTexts) alone: ${m(alone.align)} ms CPU`);
console.log(
  `  of the native path (CPU p50 each): the state's cues ${m(parts.cues)} ms, alignment's JavaScript before its graph ${m(parts.plan)} and after ${m(parts.finish)}, the alignment graph ${m(parts.run)}, the batch's arrays ${m(parts.arrays)}; all of it (one chunk, cues included) ${m(parts.total)} ms`,
);
console.log(`load average after: ${loadAverages()}`);
