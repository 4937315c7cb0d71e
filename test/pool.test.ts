import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createEngine,
  createEnginePool,
  EngineClosedError,
  RequestValidationError,
  UnknownModelError,
  type Engine,
  type Questions,
} from '../src/index.js';

// Workers run the TypeScript sources through a small esbuild loader (vitest transforms the
// main thread only).
const workerExecArgv = ['--import', new URL('./pool-ts-register.mjs', import.meta.url).href];

const TICKET =
  'I ordered the Aurora desk lamp three weeks ago and it arrived yesterday with a cracked base. ' +
  'This is the second time. I want a full refund, not a replacement.';

const QUESTIONS: Questions = {
  refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
  team: {
    type: 'choice',
    instructions: 'Which team should handle this ticket?',
    criteria: { shipping: 'Delivery and damaged parcels', billing: 'Payments and refunds', technical: null },
  },
  anger: { type: 'score', instructions: 'How upset is the customer?', criteria: ['calm', 'annoyed', 'upset', 'furious'] },
};

// About 130 tokens: a full window and a short tail; an idle worker helps by taking half the
// window's rows (encoder/rows.ts).
const MEDIUM = `${'The carrier left the parcel at the wrong door and the lamp inside was broken. '.repeat(7)}I want a refund.`;

const LONG = `${'The warehouse report lists every pallet received this week and the carrier for each. '.repeat(25)} The customer wants a refund.`;

describe('engine pool', () => {
  let single: Engine;
  let pool: Engine;
  beforeAll(async () => {
    [single, pool] = await Promise.all([createEngine(), createEnginePool({ workers: 2, workerExecArgv })]);
  });
  afterAll(async () => {
    await Promise.all([single?.close(), pool?.close()]);
  });

  it("reports the single engine's backend and matrix products (our kernel on wasm)", async () => {
    await pool.evaluate(TICKET, QUESTIONS);
    expect(pool.stats().backend).toBe(single.stats().backend);
    expect(pool.stats().matmul).toBe(single.stats().matmul);
    if (single.stats().backend === 'wasm') expect(single.stats().matmul).toBe('evalmodel-gemm');
  });

  it('answers exactly as the single engine, short, one-window and long states', async () => {
    for (const state of [TICKET, MEDIUM, LONG, { order: 48213, status: 'damaged', notes: ['cracked base', 'second time'] }]) {
      const [a, b] = await Promise.all([single.evaluate(state, QUESTIONS), pool.evaluate(state, QUESTIONS)]);
      expect(b).toEqual(a);
    }
  });

  it('answers a large rubric exactly as the single engine (an idle worker takes some questions)', async () => {
    // About 150 question tokens: over MIN_REMOTE_TOKENS, so the heads share them (heads/remote.ts).
    const rubric: Questions = Object.fromEntries(
      ['a refund', 'a replacement', 'a discount', 'to speak to a manager', 'an apology', 'a tracking number', 'a repair', 'to cancel the order'].map((want, i) => [
        `q${i}`,
        { type: 'noul', instructions: `Does the customer explicitly ask for ${want}, in writing, in this message?` },
      ]),
    );
    rubric.team = QUESTIONS.team!;
    rubric.anger = QUESTIONS.anger!;
    for (const state of [TICKET, MEDIUM, LONG]) {
      const a = await single.evaluate(state, rubric);
      expect(await pool.evaluate(state, rubric)).toEqual(a);
    }
  });

  it('answers concurrent requests on both workers, each as the single engine does', async () => {
    const states = Array.from({ length: 8 }, (_, i) => `${TICKET} Order number ${1000 + i}.`);
    const before = pool.stats().stateEncodes;
    const results = await Promise.all(states.map((s) => pool.evaluate(s, QUESTIONS)));
    for (const [i, s] of states.entries()) expect(results[i]).toEqual(await single.evaluate(s, QUESTIONS));
    expect(pool.stats().stateEncodes - before).toBe(8);
  });

  it('routes a repeated state to the worker that has it cached', async () => {
    const state = `${TICKET} (repeat ${Math.random()})`;
    await pool.evaluate(state, QUESTIONS);
    const before = pool.stats();
    await pool.evaluate(state, QUESTIONS);
    await pool.evaluate(state, QUESTIONS);
    const after = pool.stats();
    expect(after.stateEncodes).toBe(before.stateEncodes);
    expect(after.cache.hits - before.cache.hits).toBe(2);
  });

  it('keeps the calling event loop free while the workers compute', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const start = performance.now();
    await Promise.all(Array.from({ length: 4 }, (_, i) => pool.evaluate(`${LONG} Variant ${i}.`, QUESTIONS)));
    const elapsed = performance.now() - start;
    clearInterval(timer);
    // A blocked loop would tick about once; a free one about every 5 ms (allow a loaded machine).
    expect(ticks).toBeGreaterThan(Math.min(10, elapsed / 20));
  });

  it('throws the typed errors, counts tokens and lists models as the engine does', async () => {
    const invalid = await pool.evaluate({ model: 'evalmodel-latest', document: 'x', questions: {} }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(RequestValidationError);
    const expected = await single.evaluate({ model: 'evalmodel-latest', document: 'x', questions: {} }).catch((e: unknown) => e);
    expect((invalid as RequestValidationError).detail).toEqual((expected as RequestValidationError).detail);
    const unknown = await pool.evaluate(TICKET, QUESTIONS, 'evalmodel-0.0.1').catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(UnknownModelError);
    expect((unknown as UnknownModelError).model).toBe('evalmodel-0.0.1');
    const notCloneable = await pool.evaluate({ state: () => 1, questions: QUESTIONS }).catch((e: unknown) => e);
    expect(notCloneable).toBeInstanceOf(RequestValidationError);
    expect(pool.countTokens(TICKET)).toBe(single.countTokens(TICKET));
    expect(pool.listModels()).toEqual(single.listModels());
    expect(pool.resolveModel('evalmodel-latest')).toBe(single.resolveModel('evalmodel-latest'));
  });

  it('estimates work as the single engine does, in the worker the evaluation goes to, with the same errors', async () => {
    const request = { model: 'evalmodel-latest', state: `${LONG} ${Math.random()}`, questions: QUESTIONS };
    const units = await pool.estimateWork!(request);
    expect(units).toBe(await single.estimateWork!(request));
    expect(units).toBeGreaterThan(single.countTokens(LONG));
    // The evaluation reports the same estimate (its onWork) as the one given before.
    let reported = -1;
    await pool.evaluate(request, { onWork: (u) => (reported = u) });
    expect(reported).toBe(units);
    const invalid = await pool.estimateWork!({ model: 'evalmodel-latest', document: 'x', questions: {} }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(RequestValidationError);
    const unknown = await pool.estimateWork!({ model: 'evalmodel-0.0.1', state: TICKET, questions: QUESTIONS }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(UnknownModelError);
    const capped = await createEngine({ maxRequestWork: 10 });
    try {
      const over = await capped.estimateWork!(request).catch((e: unknown) => e);
      expect((over as RequestValidationError).detail[0]!.type).toBe('too_much_work');
    } finally {
      await capped.close();
    }
  });

  it('honours an abort signal, before and during the evaluation', async () => {
    const before = new AbortController();
    before.abort();
    await expect(pool.evaluate({ model: 'evalmodel-latest', state: TICKET, questions: QUESTIONS }, { signal: before.signal })).rejects.toThrow();
    const during = new AbortController();
    const run = pool.evaluate({ model: 'evalmodel-latest', state: `${LONG} ${Math.random()}`, questions: QUESTIONS }, { signal: during.signal });
    during.abort();
    await expect(run).rejects.toThrow();
    // The pool still answers afterwards.
    expect((await pool.evaluate(TICKET, QUESTIONS)).answers.refund).toBeDefined();
  });
});

describe('engine pool lifecycle', () => {
  it('lets running evaluations finish on close, then refuses calls', async () => {
    const pool = await createEnginePool({ workers: 2, workerExecArgv });
    const running = pool.evaluate(TICKET, QUESTIONS);
    await pool.close();
    expect((await running).answers.team).toBeDefined();
    await expect(pool.evaluate(TICKET, QUESTIONS)).rejects.toBeInstanceOf(EngineClosedError);
    await pool.close();
  });
});
