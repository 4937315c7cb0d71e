/**
 * One request at a time through a pool of 2 workers (an idle worker helps the busy one: it
 * takes half the rows of a lone window, encoder/rows.ts, or some of a pass's windows,
 * encoder/split.ts), through a pool of 2 with the window split only, and through a pool of 1,
 * interleaved request by request so that other load on the machine hits all three alike.
 * Prints the median latency per state length and for the jevbench-sample cases (new state,
 * known rubric).
 *
 *   node dist/bench/speed/split-ab.js
 * @module
 */
import { createEnginePool, type Engine, type Questions, type State } from '../../src/index.js';
import { loadCases, noulQuestions, stateOfTokens, withNonce } from './inputs.js';
import { median } from './report.js';

const pools: [string, Engine][] = [
  ['2 workers', await createEnginePool({ workers: 2 })],
  ['2, windows only', await createEnginePool({ workers: 2, rowSplit: false })],
  ['1 worker', await createEnginePool({ workers: 1 })],
];
const count = (t: string) => pools[0]![1].countTokens(t);
const question = noulQuestions(1, 1);
let seed = 1;

async function ms(engine: Engine, state: State, questions: Questions): Promise<number> {
  const start = performance.now();
  await engine.evaluate(state, questions);
  return performance.now() - start;
}

const header = pools.map(([name]) => `${name} ms`.padStart(20)).join('');
for (let i = 0; i < 10; i++) for (const [, e] of pools) await ms(e, stateOfTokens(256, seed++, count), question);
console.log(`state tokens${header}  (median of 14, 1 known question)`);
for (const n of [100, 120, 145, 180, 256, 400, 1024]) {
  const times = pools.map((): number[] => []);
  for (let i = 0; i < 14; i++) for (const [p, [, e]] of pools.entries()) times[p]!.push(await ms(e, stateOfTokens(n, seed++, count), question));
  console.log(`${String(n).padStart(12)}${times.map((t) => median(t).toFixed(1).padStart(20)).join('')}`);
}
const cases = loadCases();
// Every worker meets every rubric first (requests are routed by state).
for (let p = 1; p <= 4; p++) for (const c of cases) for (const [, e] of pools) await ms(e, withNonce(c.state, -p), c.questions);
const times = pools.map((): number[] => []);
for (const c of cases) for (const [p, [, e]] of pools.entries()) times[p]!.push(await ms(e, withNonce(c.state, 90 + p), c.questions));
console.log(`jevbench-sample, new state + known rubric, p50:${pools.map(([name], p) => ` ${name} ${median(times[p]!).toFixed(1)} ms`).join(',')}`);
await Promise.all(pools.map(([, e]) => e.close()));
