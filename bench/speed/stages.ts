/**
 * Where a jevbench-sample request's time goes on one engine: the encoder pass over the new
 * state, the trained heads, and the rest (validation, canonical form, tokenizer), per request
 * with a new state and a known rubric, three passes over the 48 cases. The two stages are timed
 * by wrapping `Encoder.prototype.encodeState` and `TrainedHeadsRunner.prototype.answerAll`, so
 * the engine runs unchanged.
 *
 *   node dist/bench/speed/stages.js [BACKEND]     (default: the registry's choice)
 * @module
 */
import { Encoder } from '../../src/encoder/index.js';
import { TrainedHeadsRunner } from '../../src/heads/runner.js';
import { createEngine, type BackendName } from '../../src/index.js';
import { loadCases, withNonce } from './inputs.js';
import { median } from './report.js';

const spent = { encoder: 0, heads: 0, encoderCpu: 0, headsCpu: 0 };
/** CPU time of the process (all threads), ms: robust where other processes share the cores. */
const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Wraps an async method so that its wall time adds to `spent[key]`. */
function timeMethod<T extends object>(proto: T, name: keyof T & string, key: 'encoder' | 'heads'): void {
  const original = proto[name] as unknown as (...args: unknown[]) => Promise<unknown>;
  (proto as Record<string, unknown>)[name] = async function (this: unknown, ...args: unknown[]) {
    const start = performance.now();
    const cpu = cpuNow();
    try {
      return await original.apply(this, args);
    } finally {
      spent[key] += performance.now() - start;
      spent[key === 'encoder' ? 'encoderCpu' : 'headsCpu'] += cpuNow() - cpu;
    }
  };
}
timeMethod(Encoder.prototype, 'encodeState', 'encoder');
timeMethod(TrainedHeadsRunner.prototype, 'answerAll', 'heads');

const asked = process.argv[2] as BackendName | undefined;
const engine = await createEngine(asked ? { backend: asked } : {});
const cases = loadCases();
// Every rubric known first (asked once with another state).
for (const c of cases) await engine.evaluate(withNonce(c.state, 999), c.questions);
const rows: { total: number; encoder: number; heads: number; tokens: number; cpu: number; encoderCpu: number; headsCpu: number }[] = [];
for (let pass = 0; pass < 3; pass++) {
  for (const c of cases) {
    Object.assign(spent, { encoder: 0, heads: 0, encoderCpu: 0, headsCpu: 0 });
    const start = performance.now();
    const cpu = cpuNow();
    const res = await engine.evaluate(withNonce(c.state, pass), c.questions);
    rows.push({ total: performance.now() - start, encoder: spent.encoder, heads: spent.heads, tokens: res.usage.input_tokens, cpu: cpuNow() - cpu, encoderCpu: spent.encoderCpu, headsCpu: spent.headsCpu });
  }
}
const backend = engine.stats().backend;
await engine.close();
const m = (f: (r: (typeof rows)[number]) => number) => median(rows.map(f)).toFixed(1);
console.log(`jevbench-sample, new state + known rubric, ${rows.length} requests on one engine (${backend}):`);
console.log(`  median total ${m((r) => r.total)} ms = encoder ${m((r) => r.encoder)} + heads ${m((r) => r.heads)} + rest ${m((r) => r.total - r.encoder - r.heads)} ms (medians of each part)`);
console.log(`  CPU time: median total ${m((r) => r.cpu)} ms = encoder ${m((r) => r.encoderCpu)} + heads ${m((r) => r.headsCpu)} + rest ${m((r) => r.cpu - r.encoderCpu - r.headsCpu)} ms`);
console.log(`  median input tokens ${m((r) => r.tokens)}`);
