import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, createEnginePool, type Engine, type Questions } from '../src/index.js';
import { EXACT_PROBABILITY } from '../src/exact/index.js';
import { hasTransformers, removeTinyModels, tinyModel } from './nli-helpers.js';

const workerExecArgv = ['--import', new URL('./pool-ts-register.mjs', import.meta.url).href];

const ORDER = {
  order_id: 'A-1001',
  total_eur: 1250,
  status: 'shipped',
  items: [
    { sku: 'lamp', qty: 1, price: 1200 },
    { sku: 'bulb', qty: 2, price: 25 },
  ],
  note: 'Customer asked for gift wrapping and was unhappy about the delay.',
};

const QUESTIONS: Questions = {
  small: { type: 'noul', instructions: 'Is `total_eur` below 100?' },
  many: { type: 'noul', instructions: 'Does any element of `items` have `qty` greater than 1?' },
  count: { type: 'score', instructions: 'How many entries in `items` have `price` above 100?', criteria: ['none', 'one', 'two or more'] },
  unhappy: { type: 'noul', instructions: 'Was the customer unhappy?' },
  team: { type: 'choice', instructions: 'Which team handles this?', criteria: { shipping: null, billing: null } },
};

describe('exact stage in the engine', () => {
  let on: Engine;
  let off: Engine;
  beforeAll(async () => {
    [on, off] = await Promise.all([createEngine(), createEngine({ exact: false })]);
  });
  afterAll(async () => {
    await Promise.all([on?.close(), off?.close()]);
  });

  it('answers what the data decides exactly and leaves the rest to the model unchanged', async () => {
    const [a, b] = await Promise.all([on.evaluate(ORDER, QUESTIONS), off.evaluate(ORDER, QUESTIONS)]);
    expect(a.answers.small).toEqual({ type: 'noul', noul: 1 - EXACT_PROBABILITY });
    expect(a.answers.many).toEqual({ type: 'noul', noul: EXACT_PROBABILITY });
    const count = a.answers.count!;
    expect(count.type === 'score' && count.probabilities['1']).toBe(EXACT_PROBABILITY);
    // The model's answers are the same with or without the stage; usage counts every question either way.
    expect(a.answers.unhappy).toEqual(b.answers.unhappy);
    expect(a.answers.team).toEqual(b.answers.team);
    expect(b.answers.small).not.toEqual(a.answers.small);
    expect(a.usage).toEqual(b.usage);
  });

  it('counts what it answered, says whether it is on, and skips the encoder when it answers everything', async () => {
    const before = on.stats();
    await on.evaluate({ other: 7, list: [1, 2] }, { q: { type: 'noul', instructions: '`other` >= 7' } });
    const after = on.stats();
    expect(after.exact).toEqual({ enabled: true, answered: before.exact.answered + 1, abstained: before.exact.abstained });
    expect(after.stateEncodes).toBe(before.stateEncodes);
    expect(off.stats().exact).toMatchObject({ enabled: false, answered: 0 });
  });

  it('answers a boolean field named by plain words as it answers any exact question, and leaves its negation to the model', async () => {
    const questions: Questions = {
      paid: { type: 'noul', instructions: 'Has the invoice been paid?' },
      unpaid: { type: 'noul', instructions: 'Is the invoice unpaid?' },
      late: { type: 'noul', instructions: 'Was the invoice paid late?' },
    };
    const before = on.stats().exact;
    const [no, yes, model] = await Promise.all([
      on.evaluate({ invoice: 'INV-8', paid: false, amount: 120 }, questions),
      on.evaluate({ invoice: 'INV-8', paid: true, amount: 120 }, questions),
      off.evaluate({ invoice: 'INV-8', paid: false, amount: 120 }, questions),
    ]);
    expect(no.answers.paid).toEqual({ type: 'noul', noul: 1 - EXACT_PROBABILITY });
    expect(yes.answers.paid).toEqual({ type: 'noul', noul: EXACT_PROBABILITY });
    expect(model.answers.paid).not.toEqual(no.answers.paid);
    expect(no.answers.unpaid).toEqual(model.answers.unpaid);
    expect(no.answers.late).toEqual(model.answers.late);
    expect(no.usage).toEqual(model.usage);
    expect(on.stats().exact).toEqual({ enabled: true, answered: before.answered + 2, abstained: before.abstained + 4 });
  });

  it('a pool answers as the single engine and sums the counts of its workers', async () => {
    const pool = await createEnginePool({ workers: 1, workerExecArgv });
    try {
      const [a, b] = await Promise.all([on.evaluate(ORDER, QUESTIONS), pool.evaluate(ORDER, QUESTIONS)]);
      expect(b).toEqual(a);
      expect(pool.stats().exact).toEqual({ enabled: true, answered: 3, abstained: 2 });
    } finally {
      await pool.close();
    }
  });
});

describe.skipIf(!hasTransformers)('exact stage with an NLI model (tiny random model, no network)', () => {
  it('answers what the data decides exactly; the NLI model answers the rest and counts usage for all', async () => {
    const folder = tinyModel({ maxLength: 256 });
    const [on, off] = await Promise.all([createEngine({ modelDir: folder, defaultModel: 'evalmodel-nli' }), createEngine({ modelDir: folder, defaultModel: 'evalmodel-nli', exact: false })]);
    try {
      const [a, b] = await Promise.all([on.evaluate(ORDER, QUESTIONS), off.evaluate(ORDER, QUESTIONS)]);
      expect(a.answers.small).toEqual({ type: 'noul', noul: 1 - EXACT_PROBABILITY });
      expect(a.answers.unhappy).toEqual(b.answers.unhappy);
      expect(a.answers.team).toEqual(b.answers.team);
      expect(a.usage).toEqual(b.usage);
      expect(on.stats().exact).toMatchObject({ enabled: true, answered: 3, abstained: 2 });
    } finally {
      await Promise.all([on.close(), off.close()]);
      removeTinyModels();
    }
  });
});
