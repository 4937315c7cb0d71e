/**
 * The row split alone: one request at a time through a 2-worker pool with the row split and
 * one with the window split only, alternating request by request (30 each per length), on
 * states of one window or one window plus a short tail, where only the row split can share
 * the encoder's work. Finer than split-ab.ts (more requests, only the lengths it changes).
 *
 *   node dist/bench/speed/rows-ab.js
 * @module
 */
import { createEnginePool, type Engine } from '../../src/index.js';
import { noulQuestions, stateOfTokens } from './inputs.js';
import { median } from './report.js';

const rows = await createEnginePool({ workers: 2 });
const windows = await createEnginePool({ workers: 2, rowSplit: false });
const question = noulQuestions(1, 1);
const count = (t: string) => rows.countTokens(t);
let seed = 1;

async function ms(engine: Engine, state: string): Promise<number> {
  const start = performance.now();
  await engine.evaluate(state, question);
  return performance.now() - start;
}

// States made first, so that their tokenisation does not run between the timed requests.
const states = new Map<number, string[]>();
for (const n of [100, 115, 128, 145]) states.set(n, Array.from({ length: 70 }, () => stateOfTokens(n, seed++, count)));
for (let i = 0; i < 10; i++) for (const e of [rows, windows]) await ms(e, states.get(128)![i]!);
console.log('state tokens  row split ms  window split only ms  (median of 30 each, 1 known question)');
for (const [n, list] of states) {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 10; i < 70; i += 2) {
    a.push(await ms(rows, list[i]!));
    b.push(await ms(windows, list[i + 1]!));
  }
  console.log(`${String(n).padStart(12)}  ${median(a).toFixed(1).padStart(12)}  ${median(b).toFixed(1).padStart(20)}`);
}
await Promise.all([rows.close(), windows.close()]);
