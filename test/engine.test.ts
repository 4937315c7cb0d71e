import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createEngine, RequestValidationError, UnknownModelError, type Engine, type Questions, type SystemOneResponse } from '../src/index.js';

const TICKET =
  'I ordered the Aurora desk lamp three weeks ago and it arrived yesterday with a cracked base. ' +
  'This is the second time. I want a full refund, not a replacement.';

const QUESTIONS: Questions = {
  refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
  praise: { type: 'noul', instructions: 'Is the customer praising the product?', criteria: { true: 'positive words', false: null } },
  team: {
    type: 'choice',
    instructions: 'Which team should handle this ticket?',
    criteria: { shipping: 'Delivery and damaged parcels', billing: 'Payments and refunds', technical: null },
  },
  anger: { type: 'score', instructions: 'How upset is the customer?', criteria: ['calm', 'annoyed', 'upset', 'furious'] },
};

function checkInvariants(questions: Questions, res: SystemOneResponse): void {
  expect(res.model).toBe('evalmodel-1.14.0');
  expect(Object.keys(res.answers)).toEqual(Object.keys(questions));
  for (const [id, q] of Object.entries(questions)) {
    const a = res.answers[id]!;
    expect(a.type).toBe(q.type);
    if (a.type === 'noul') {
      expect(a.noul).toBeGreaterThanOrEqual(0);
      expect(a.noul).toBeLessThanOrEqual(1);
      expect('confidence' in a).toBe(false);
    } else if (a.type === 'choice' && q.type === 'choice') {
      const names = Object.keys(q.criteria);
      expect(Object.keys(a.probabilities)).toEqual(names);
      const p = Object.values(a.probabilities);
      expect(Math.abs(p.reduce((s, x) => s + x, 0) - 1)).toBeLessThan(1e-6);
      expect(a.choice).toBe(names[p.indexOf(Math.max(...p))]);
      expect(a.confidence).toBeGreaterThanOrEqual(0);
      expect(a.confidence).toBeLessThanOrEqual(1);
    } else if (a.type === 'score' && q.type === 'score') {
      const keys = q.criteria.map((_, i) => String(i));
      expect(Object.keys(a.legend)).toEqual(keys);
      expect(Object.keys(a.probabilities)).toEqual(keys);
      const p = Object.values(a.probabilities);
      expect(Math.abs(p.reduce((s, x) => s + x, 0) - 1)).toBeLessThan(1e-6);
      expect(Math.abs(a.score - p.reduce((s, x, i) => s + i * x, 0))).toBeLessThan(1e-9);
      expect(a.confidence).toBeGreaterThanOrEqual(0);
      expect(a.confidence).toBeLessThanOrEqual(1);
      q.criteria.forEach((c, i) => expect(a.legend[String(i)]).toEqual(c));
    } else {
      throw new Error(`answer type ${a.type} for question type ${q.type}`);
    }
  }
  expect(Number.isInteger(res.usage.input_tokens)).toBe(true);
  expect(res.usage.output_tokens).toBe(0);
}

describe('engine pipeline', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await createEngine({ cacheBytes: 8 * 1024 * 1024 });
  });
  afterAll(() => engine.close());

  it('answers every question with its own type, on the versioned model', async () => {
    const res = await engine.evaluate({ model: 'evalmodel-latest', state: TICKET, questions: QUESTIONS });
    checkInvariants(QUESTIONS, res);
  });

  it('accepts the positional form with the default model, and the versioned id', async () => {
    const a = await engine.evaluate(TICKET, QUESTIONS);
    const b = await engine.evaluate(TICKET, QUESTIONS, 'evalmodel-1.14.0');
    const c = await engine.evaluate({ model: 'evalmodel-preview', state: TICKET, questions: QUESTIONS });
    expect(a).toEqual(b);
    expect(c).toEqual(b);
  });

  it('encodes the state exactly once per request, and not at all on a cache hit', async () => {
    const state = `${TICKET} (request ${Math.random()})`;
    const many: Questions = {};
    for (let i = 0; i < 9; i++) many[`q${i}`] = { type: 'noul', instructions: `Question number ${i}?` };
    const before = engine.stats();
    await engine.evaluate(state, many);
    const mid = engine.stats();
    expect(mid.stateEncodes - before.stateEncodes).toBe(1);
    expect(mid.cache.misses - before.cache.misses).toBe(1);
    await engine.evaluate(state, many);
    const after = engine.stats();
    expect(after.stateEncodes).toBe(mid.stateEncodes);
    expect(after.cache.hits - mid.cache.hits).toBe(1);
  });

  it('shares one encoding among concurrent requests for the same state', async () => {
    const state = `${TICKET} (concurrent ${Math.random()})`;
    const before = engine.stats().stateEncodes;
    const results = await Promise.all(Array.from({ length: 5 }, () => engine.evaluate(state, QUESTIONS)));
    expect(engine.stats().stateEncodes - before).toBe(1);
    for (const r of results) expect(r).toEqual(results[0]);
  });

  it('counts usage as state tokens once plus each question', async () => {
    const one = await engine.evaluate(TICKET, { a: QUESTIONS.refund! });
    const two = await engine.evaluate(TICKET, { a: QUESTIONS.refund!, b: QUESTIONS.refund! });
    const stateTokens = engine.countTokens(
      (await import('../src/canonical/index.js')).renderState(TICKET),
    );
    const perQuestion = one.usage.input_tokens - stateTokens;
    expect(perQuestion).toBeGreaterThan(0);
    expect(two.usage.input_tokens).toBe(stateTokens + 2 * perQuestion);
  });

  it('answers a question the same alone, among others, and under another id', async () => {
    const alone = await engine.evaluate(TICKET, { x: QUESTIONS.team! });
    const together = await engine.evaluate(TICKET, QUESTIONS);
    const renamed = await engine.evaluate(TICKET, { 'another id': QUESTIONS.team!, filler: QUESTIONS.anger! });
    expect(together.answers.team).toEqual(alone.answers.x);
    expect(renamed.answers['another id']).toEqual(alone.answers.x);
  });

  it('handles 255 options and 10 levels', async () => {
    const criteria: Record<string, string | null> = {};
    for (let i = 0; i < 255; i++) criteria[`option ${i}`] = i % 3 === 0 ? null : `Description of option ${i}`;
    const levels = Array.from({ length: 10 }, (_, i) => `level ${i}`);
    const q: Questions = { c: { type: 'choice', instructions: 'Which?', criteria }, s: { type: 'score', instructions: 'How much?', criteria: levels } };
    checkInvariants(q, await engine.evaluate('A short state.', q));
  });

  it('encodes long states in windows (facts past the first 128 tokens change the encoding)', async () => {
    const filler = 'The weather report mentioned light clouds over the harbour in the morning. '.repeat(20);
    const a = await engine.evaluate(`${filler} The invoice total is 40 dollars.`, { s: QUESTIONS.refund! });
    const b = await engine.evaluate(`${filler} The customer demands a refund right now.`, { s: QUESTIONS.refund! });
    expect(a.answers.s).not.toEqual(b.answers.s);
  });

  it('throws RequestValidationError with the 422 detail, before any model work', async () => {
    const before = engine.stats().stateEncodes;
    const err = await engine.evaluate({ model: 'evalmodel-latest', document: 'x', questions: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestValidationError);
    const locs = (err as RequestValidationError).detail.map((d) => d.loc.join('.'));
    expect(locs).toContain('body.state');
    expect(locs).toContain('body.document');
    expect(locs).toContain('body.questions');
    expect(engine.stats().stateEncodes).toBe(before);
  });

  it('throws UnknownModelError naming the model', async () => {
    const err = await engine.evaluate(TICKET, QUESTIONS, 'evalmodel-0.0.1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownModelError);
    expect((err as Error).message).toContain('evalmodel-0.0.1');
  });

  it('never throws anything but the two typed errors for arbitrary input', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (body) => {
        try {
          await engine.evaluate(body);
        } catch (e) {
          expect(e instanceof RequestValidationError || e instanceof UnknownModelError).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('honours an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(engine.evaluate({ model: 'evalmodel-latest', state: `abort ${Math.random()}`, questions: QUESTIONS }, { signal: controller.signal })).rejects.toThrow();
  });
});

describe('engine lifecycle and cache budget', () => {
  it('keeps the cache within its byte budget and evicts old states', async () => {
    const engine = await createEngine({ cacheBytes: 600_000 });
    for (let i = 0; i < 6; i++) await engine.evaluate(`${TICKET} Variant ${i}. ${'More text here. '.repeat(20)}`, { q: QUESTIONS.refund! });
    const { cache } = engine.stats();
    expect(cache.bytes).toBeLessThanOrEqual(600_000);
    expect(cache.entries).toBeLessThan(6);
    expect(cache.misses).toBe(6);
    await engine.close();
  });

  it('works with the cache disabled, and refuses calls after close', async () => {
    const engine = await createEngine({ cacheBytes: 0 });
    await engine.evaluate(TICKET, QUESTIONS);
    await engine.evaluate(TICKET, QUESTIONS);
    expect(engine.stats().stateEncodes).toBe(2);
    await engine.close();
    await expect(engine.evaluate(TICKET, QUESTIONS)).rejects.toThrow(/closed/);
  });
});
