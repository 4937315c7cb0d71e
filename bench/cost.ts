/**
 * Measures what a request's parts cost on this machine, to calibrate the engine's work
 * estimate (src/engine/cost.ts) and the server's default per-key work rate.
 *
 *   npm run build && node dist/bench/cost.js [--scale X]
 *
 * Runs one in-process engine (one core) on fresh texts (nothing cached) in four shapes: a long
 * state with one short question; a short state with many choice options; a long state with
 * many options (the heads' state-by-option work); many short questions. Prints seconds per
 * shape, the estimate `estimateWork` gives each, and work units per second (the capacity of
 * one engine; the estimate is in state-token equivalents, so about this many state tokens a
 * second). `--scale` multiplies every size (default 1; 0.25 for a quick look).
 * @module
 */
import { parseArgs } from 'node:util';
import { createEngine } from '../src/engine/engine.js';
import { renderQuestion, renderState } from '../src/canonical/index.js';
import type { Engine } from '../src/engine/contract.js';
import { workUnits, type WorkParts } from '../src/engine/cost.js';
import { validateRequest } from '../src/validation/index.js';

/** The estimate's inputs, as the engine computes them. */
function partsOf(engine: Engine, body: unknown): WorkParts {
  const checked = validateRequest(body);
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors).slice(0, 300));
  const { state, questions } = checked.request;
  return {
    stateTokens: engine.countTokens(renderState(state)),
    questions: Object.values(questions).map((q) => {
      const r = renderQuestion(q);
      return { tokens: engine.countTokens(r.text), outcomes: r.outcomes.length };
    }),
  };
}

const { values } = parseArgs({ options: { scale: { type: 'string', default: '1' }, help: { type: 'boolean', short: 'h' } } });
if (values.help) {
  console.log('Usage: node dist/bench/cost.js [--scale X]');
  process.exit(0);
}
const scale = Number(values.scale);
const WORDS = 'parcel carrier warehouse invoice refund customer delivery address weather morning report pallet driver station river garden window billing crushed late broken'.split(' ');
let seed = Math.floor(Math.random() * 1e6);
const words = (n: number) => Array.from({ length: n }, () => WORDS[(seed = (seed * 1103515245 + 12345) % 2147483648) % WORDS.length]).join(' ');
const fresh = () => `${++seed}x`;

function options(n: number, wordsEach: number): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (let i = 0; i < n; i++) out[`${fresh()} ${words(wordsEach)}`] = null;
  return out;
}

const shapes: { name: string; request: () => unknown }[] = [
  { name: 'long state, one noul', request: () => ({ model: 'evalmodel-latest', state: `${fresh()} ${words(Math.round(8_000 * scale))}`, questions: { q: { type: 'noul', instructions: `${fresh()} Is the parcel late?` } } }) },
  {
    name: 'short state, 4 x 255 options',
    request: () => ({ model: 'evalmodel-latest', state: `${fresh()} The parcel is late.`, questions: Object.fromEntries([1, 2, 3, 4].map((i) => [`q${i}`, { type: 'choice', instructions: `${fresh()} Which team?`, criteria: options(Math.round(255 * scale), 4) }])) }),
  },
  {
    name: 'long state, 2 x 255 options',
    request: () => ({ model: 'evalmodel-latest', state: `${fresh()} ${words(Math.round(4_000 * scale))}`, questions: Object.fromEntries([1, 2].map((i) => [`q${i}`, { type: 'choice', instructions: `${fresh()} Which team?`, criteria: options(Math.round(255 * scale), 4) }])) }),
  },
  {
    name: 'short state, 200 noul',
    request: () => ({ model: 'evalmodel-latest', state: `${fresh()} ${words(100)}`, questions: Object.fromEntries(Array.from({ length: Math.round(200 * scale) }, (_, i) => [`q${i}`, { type: 'noul', instructions: `${fresh()} ${words(8)}?` }])) }),
  },
];

const engine = await createEngine();
await engine.evaluate('warm up', { q: { type: 'noul', instructions: 'Warm?' } });
let units = 0;
let seconds = 0;
console.log('shape | state tokens | question tokens | outcomes | seconds | work units | units/s');
for (const shape of shapes) {
  const request = shape.request();
  const parts = partsOf(engine, request);
  const work = workUnits(parts);
  const q = parts.questions.reduce((a, x) => ({ tokens: a.tokens + x.tokens, outcomes: a.outcomes + x.outcomes }), { tokens: 0, outcomes: 0 });
  const started = performance.now();
  await engine.evaluate(request);
  const s = (performance.now() - started) / 1000;
  units += work;
  seconds += s;
  console.log(`${shape.name} | ${parts.stateTokens} | ${q.tokens} | ${q.outcomes} | ${s.toFixed(2)} | ${work} | ${Math.round(work / s)}`);
}
console.log(`all | | | | ${seconds.toFixed(2)} | ${units} | ${Math.round(units / seconds)}`);
await engine.close();
