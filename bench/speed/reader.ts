/**
 * The reader's own time per jevbench-sample request (new state, known rubric), on
 * onnxruntime-node against its tfjs forward pass, on one engine whose encoder runs on
 * onnxruntime-node. Passes alternate the two reader backends (`setNativeReaderEnabled`), so a
 * change in the machine's load falls on both; each request's reader inputs are captured on the
 * native passes, then the two forward passes alone are timed on them, alternately. Parts are
 * timed in the process' CPU time (all threads), which holds up better than wall time where
 * other work shares the cores; requests in wall time and CPU time.
 *
 *   node dist/bench/speed/reader.js [--passes 2]
 * @module
 */
import { parseArgs } from 'node:util';
import type { ReaderQuestion, ReaderText } from '../../src/heads/reader/batch.js';
import { readerLogits } from '../../src/heads/reader/logits.js';
import { setNativeReaderEnabled } from '../../src/heads/reader/native.js';
import { OnnxReader } from '../../src/heads/reader/onnx-runner.js';
import { TrainedHeadsRunner } from '../../src/heads/runner.js';
import { withNonce } from './inputs.js';
import { loadAverages, nativeAB } from './native-ab.js';
import { cpuNow } from './machine.js';
import { median } from './report.js';

const { values: args } = parseArgs({ options: { passes: { type: 'string', default: '2' } }, strict: true });
const passes = Math.max(1, Number(args.passes));

/** Reader inputs seen on the native passes, with the reader that served them. */
const captured: { runner: OnnxReader; state: ReaderText; questions: readonly ReaderQuestion[] }[] = [];
const logits = OnnxReader.prototype.logits;
let nativeMs = 0;
OnnxReader.prototype.logits = async function (this: OnnxReader, state, questions) {
  captured.push({ runner: this, state, questions });
  const start = cpuNow();
  try {
    return await logits.call(this, state, questions);
  } finally {
    nativeMs += cpuNow() - start;
  }
};
let headsMs = 0;
const answerAll = TrainedHeadsRunner.prototype.answerAll;
TrainedHeadsRunner.prototype.answerAll = async function (this: TrainedHeadsRunner, ...a: Parameters<typeof answerAll>) {
  const start = cpuNow();
  try {
    return await answerAll.apply(this, a);
  } finally {
    headsMs += cpuNow() - start;
  }
};

const { cases, engine } = await nativeAB(setNativeReaderEnabled);
const rows = { native: [] as { total: number; heads: number; cpu: number; reader: number }[], tfjs: [] as { total: number; heads: number; cpu: number; reader: number }[] };
for (let pass = 0; pass < 2 * passes; pass++) {
  const native = pass % 2 === 0;
  setNativeReaderEnabled(native);
  for (const c of cases) {
    headsMs = 0;
    nativeMs = 0;
    const start = performance.now();
    const cpu = cpuNow();
    await engine.evaluate(withNonce(c.state, pass), c.questions);
    (native ? rows.native : rows.tfjs).push({ total: performance.now() - start, heads: headsMs, cpu: cpuNow() - cpu, reader: nativeMs });
  }
}
const reader = engine.stats().reader;
await engine.close();

// The forward passes alone, on the captured inputs of the last native pass (one per request).
const last = captured.slice(-cases.length);
const alone = { native: [] as number[], tfjs: [] as number[] };
for (let round = 0; round < passes; round++) {
  for (const { runner, state, questions } of last) {
    let start = cpuNow();
    await runner.logits(state, questions);
    alone.native.push(cpuNow() - start);
    start = cpuNow();
    readerLogits(runner.reader, state, questions);
    alone.tfjs.push(cpuNow() - start);
  }
}
const m = (xs: number[]) => median(xs).toFixed(2);
console.log(`jevbench-sample, new state + known rubric, ${cases.length} requests x ${passes} passes per reader backend, encoder on onnxruntime-node; engine.stats().reader: ${JSON.stringify(reader)}`);
for (const k of ['native', 'tfjs'] as const) {
  const r = rows[k];
  console.log(
    `  reader on ${k === 'native' ? 'onnxruntime-node' : 'tfjs (wasm)'}: request p50 ${m(r.map((x) => x.total))} ms (CPU ${m(r.map((x) => x.cpu))} ms), CPU time p50 of heads + reader ${m(r.map((x) => x.heads))} ms (native reader in it ${m(r.map((x) => x.reader))} ms), of the reader's forward pass alone ${m(alone[k])} ms`,
  );
}
console.log(`load average after: ${loadAverages()}`);
