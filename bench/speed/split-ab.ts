/**
 * One request at a time through a pool of 2 workers (an idle worker encodes some of the busy
 * one's state windows) against a pool of 1, interleaved request by request so that other load
 * on the machine hits both alike. Prints the median latency per state length and for the
 * jevbench-sample cases (new state, known rubric).
 *
 *   node dist/bench/speed/split-ab.js
 * @module
 */
import { createEnginePool, type Engine, type Questions, type State } from '../../src/index.js';
import { loadCases, noulQuestions, stateOfTokens, withNonce } from './inputs.js';
import { median } from './report.js';

const two = await createEnginePool({ workers: 2 });
const one = await createEnginePool({ workers: 1 });
const count = (t: string) => two.countTokens(t);
const question = noulQuestions(1, 1);
let seed = 1;

async function ms(engine: Engine, state: State, questions: Questions): Promise<number> {
  const start = performance.now();
  await engine.evaluate(state, questions);
  return performance.now() - start;
}

for (let i = 0; i < 10; i++) for (const e of [two, one]) await ms(e, stateOfTokens(256, seed++, count), question);
console.log('state tokens  2 workers ms  1 worker ms  (median of 14, 1 known question)');
for (const n of [120, 180, 256, 400, 1024]) {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < 14; i++) {
    a.push(await ms(two, stateOfTokens(n, seed++, count), question));
    b.push(await ms(one, stateOfTokens(n, seed++, count), question));
  }
  console.log(`${String(n).padStart(12)}  ${median(a).toFixed(1).padStart(12)}  ${median(b).toFixed(1).padStart(11)}`);
}
const cases = loadCases();
// Every worker meets every rubric first (requests are routed by state).
for (let p = 1; p <= 4; p++) for (const c of cases) for (const e of [two, one]) await ms(e, withNonce(c.state, -p), c.questions);
const a: number[] = [];
const b: number[] = [];
for (const c of cases) {
  a.push(await ms(two, withNonce(c.state, 99), c.questions));
  b.push(await ms(one, withNonce(c.state, 98), c.questions));
}
console.log(`jevbench-sample, new state + known rubric: 2 workers p50 ${median(a).toFixed(1)} ms, 1 worker p50 ${median(b).toFixed(1)} ms`);
await Promise.all([two.close(), one.close()]);
