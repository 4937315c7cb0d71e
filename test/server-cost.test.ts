/**
 * Bounded cost per request, over a real socket: the work cap refuses a request within every
 * documented limit whose work would take minutes (422 `too_much_work`, before any encoding),
 * the compute deadline ends a long evaluation (504) and stops its encoding, the per-key work
 * bucket answers 429, small requests have their own queue, and 422 bodies are bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readEncoderWork } from '../src/encoder/index.js';
import { DEFAULT_MAX_REQUEST_WORK } from '../src/engine/cost.js';
import type { Engine } from '../src/engine/contract.js';
import type { ServerHandle } from '../src/server/index.js';
import { MAX_DETAIL_ENTRIES } from '../src/server/validation-body.js';
import { authed, bind, sampleRequest, sharedEngine, smallRequestBound, start } from './server/helpers.js';
import { conforms, expectError, until } from './server/assertions.js';

const WORDS = 'parcel carrier warehouse invoice refund customer delivery address weather morning report pallet driver station river garden window'.split(' ');

/** 48 choice questions of 255 options each: about 50k tokens, within every budget. */
function heavyRequest() {
  const questions: Record<string, unknown> = {};
  for (let q = 0; q < 48; q++) {
    const criteria: Record<string, null> = {};
    for (let i = 0; i < 255; i++) criteria[`${WORDS[(q + i) % WORDS.length]}${i}`] = null;
    questions[`q${q}`] = { type: 'choice', instructions: `Which option fits best, number ${q}?`, criteria };
  }
  return { model: 'evalmodel-latest', state: 'The parcel arrived late.', questions };
}

function longState(tokens: number): string {
  const seed = Math.floor(Math.random() * 1e9);
  return [`case ${seed}`, ...Array.from({ length: tokens }, (_, i) => WORDS[(i * 7 + seed) % WORDS.length])].join(' ');
}

let engine: Engine;
beforeAll(async () => {
  engine = await sharedEngine();
  await engine.evaluate(sampleRequest('warm up'));
});
afterAll(() => engine?.close());

describe('per-request work cap', () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server?.close());

  it('refuses 48 choice questions x 255 options up front (422 too_much_work naming the limit), answering a small request within 1 s meanwhile (3x an idle one on a slower machine)', async () => {
    const bound = await smallRequestBound(server.url);
    const heavy = heavyRequest();
    expect(engine.countTokens(JSON.stringify(heavy.questions))).toBeGreaterThan(40_000);
    const before = readEncoderWork().tokens;
    const refused = authed(server.url, '/v1/systemone', { body: heavy });
    const started = performance.now();
    const small = await authed(server.url, '/v1/systemone', { body: sampleRequest(`small ${Math.random()}`) });
    expect(small.status, small.text).toBe(200);
    expect(performance.now() - started).toBeLessThan(bound);
    const reply = await refused;
    expect(reply.status, reply.text.slice(0, 300)).toBe(422);
    conforms('HTTPValidationError', reply.json);
    const [entry] = reply.json.detail;
    expect(entry).toMatchObject({ loc: ['body'], type: 'too_much_work', ctx: { limit: DEFAULT_MAX_REQUEST_WORK } });
    expect(entry.ctx.estimate).toBeGreaterThan(DEFAULT_MAX_REQUEST_WORK);
    expect(entry.msg).toContain(String(DEFAULT_MAX_REQUEST_WORK));
    // Refused before any encoding: only the small request's texts were encoded.
    expect(readEncoderWork().tokens - before).toBeLessThan(2_000);
  }, 60_000);
});

describe('compute deadline', () => {
  it('ends a long evaluation with 504 compute_deadline and stops its encoding', async () => {
    // 200 ms: onnxruntime-node encodes about 20k tokens a second, so with a longer deadline
    // half the state could be done before it fires (10,240 of 20k once at 500 ms).
    const server = await start({ computeTimeoutMs: 200 });
    try {
      const before = readEncoderWork().tokens;
      const started = performance.now();
      const reply = await authed(server.url, '/v1/systemone', { body: { ...sampleRequest(longState(20_000)), questions: { q: { type: 'noul', instructions: 'Late?' } } } });
      expectError(reply, 504, 'compute_deadline');
      expect(reply.json.error.limit_ms).toBe(200);
      expect(performance.now() - started).toBeLessThan(5_000);
      // Far from the 20k tokens of the whole state: nothing kept running after the deadline.
      const after = readEncoderWork().tokens;
      await new Promise((r) => setTimeout(r, 500));
      expect(readEncoderWork().tokens).toBe(after);
      expect(after - before).toBeLessThan(10_000);
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('per-key work rate', () => {
  it('charges each request its estimated work and answers 429 work_units_per_second once the bucket is spent', async () => {
    // 100 units/s, a bucket of 3,000: one 5,000-unit request spends it.
    const server = await start({ rateLimits: { workUnitsPerSecond: 100 } });
    try {
      const first = await authed(server.url, '/v1/systemone', { body: { ...sampleRequest(longState(5_000)), questions: { q: { type: 'noul', instructions: 'Late?' } } } });
      expect(first.status, first.text).toBe(200);
      const second = await authed(server.url, '/v1/systemone', { body: sampleRequest() });
      expectError(second, 429, 'rate_limited');
      expect(second.json.error.limit).toBe('work_units_per_second');
      // The first request's estimate (about 7,000 units) left the key at the debt floor (one
      // bucket, 3,000 units, 30 s at 100 units/s), less what refilled while it ran.
      expect(Number(second.headers['retry-after-ms'])).toBeGreaterThan(1_000);
      // Another key is not affected.
      const other = await start({ rateLimits: { workUnitsPerSecond: 100 }, keys: ['test-key', 'other-key'] });
      try {
        expect((await authed(other.url, '/v1/systemone', { body: sampleRequest() }, 'other-key')).status).toBe(200);
      } finally {
        await other.close();
      }
    } finally {
      await server.close();
    }
  }, 60_000);
});

describe('a queue of its own for small requests', () => {
  it('answers a small request while long ones fill the queue (which answers them 529)', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // Long bodies wait for the gate; small ones run at once.
    const gated: Engine = {
      ...bind(engine),
      evaluate: (async (body: { state: string }, options: unknown) => {
        if (body.state.length > 10_000) await gate;
        return engine.evaluate(body, options as never);
      }) as Engine['evaluate'],
    };
    const server = await start({ engine: gated, concurrency: 1, maxQueued: 1 });
    try {
      const long = () => authed(server.url, '/v1/systemone', { body: sampleRequest(longState(3_000)) });
      const running = [long(), long()];
      await new Promise((r) => setTimeout(r, 300));
      const third = await long();
      expectError(third, 529, 'overloaded');
      const small = await authed(server.url, '/v1/systemone', { body: sampleRequest('small') });
      expect(small.status).toBe(200);
      release();
      for (const r of await Promise.all(running)) expect(r.status).toBe(200);
    } finally {
      release();
      await server.close();
    }
  }, 60_000);
});

describe('queue bound in work', () => {
  it('admits by the estimated work already queued: 529 once it would pass maxQueuedWork, while a lighter request still fits; invalid requests never wait', async () => {
    // Every evaluation waits for one gate, opened once.
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let started = 0;
    const gated: Engine = {
      ...bind(engine),
      evaluate: (async (body: unknown, options: unknown) => {
        started++;
        await gate;
        return engine.evaluate(body, options as never);
      }) as Engine['evaluate'],
    };
    const request = (tokens: number) => ({ ...sampleRequest(longState(tokens)), questions: { q: { type: 'noul', instructions: 'Late?' } } });
    const [running, big, bigToo, light] = [request(500), request(3_000), request(3_000), request(1_000)];
    const estimate = (body: unknown) => engine.estimateWork!(body);
    expect(await estimate(big)).toBeGreaterThan(3_000);
    // Room for one big request and one light one, not for two big ones.
    const maxQueuedWork = (await estimate(big)) + (await estimate(light));
    expect(2 * (await estimate(bigToo))).toBeGreaterThan(maxQueuedWork);
    // Every body in the one lane (lightBodyBytes 0), whose slot the first request holds.
    const server = await start({ engine: gated, concurrency: 1, maxQueued: 16, maxQueuedWork, lightBodyBytes: 0 });
    try {
      const send = (body: unknown) => authed(server.url, '/v1/systemone', { body });
      const first = send(running);
      await until(() => started === 1);
      const waiting = send(big);
      await until(() => server.stats().queued === 1);
      expect(server.stats().queuedWork).toBe(await estimate(big));
      // Far from the 16-request bound, but over the work bound.
      const refused = await send(bigToo);
      expectError(refused, 529, 'overloaded');
      expect(refused.json.error.message).toContain(`${maxQueuedWork} work units`);
      expect(Number(refused.headers['retry-after-ms'])).toBeGreaterThan(0);
      const fits = send(light);
      await until(() => server.stats().queued === 2);
      // Invalid requests are answered from the estimate's checks, without waiting for a slot.
      const invalid = await send({ ...big, questions: { q: { type: 'maybe' } } });
      expect(invalid.status).toBe(422);
      expect(server.stats().queued).toBe(2);
      open();
      const replies = await Promise.all([first, waiting, fits]);
      for (const r of replies) expect(r.status, r.text.slice(0, 200)).toBe(200);
      expect(server.stats().queuedWork).toBe(0);
    } finally {
      open();
      await server.close();
    }
  }, 120_000);
});

describe('bounded 422 bodies', () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server?.close());

  it('echoes a preview of a 900 KB invalid input, marked truncated, in the specification shape', async () => {
    const reply = await authed(server.url, '/v1/systemone', { body: { model: 'evalmodel-latest', state: 'x', questions: 'q'.repeat(900_000) } });
    expect(reply.status).toBe(422);
    conforms('HTTPValidationError', reply.json);
    expect(reply.text.length).toBeLessThan(2_000);
    const [entry] = reply.json.detail;
    expect(entry.loc).toEqual(['body', 'questions']);
    expect(entry.input).toBe(`${'q'.repeat(256)}…`);
    expect(entry.ctx.input_truncated).toBe(true);
  });

  it('keeps small inputs whole and unmarked', async () => {
    const reply = await authed(server.url, '/v1/systemone', { body: { model: 'evalmodel-latest', state: 'x', questions: 'short' } });
    expect(reply.json.detail[0].input).toBe('short');
    expect(reply.json.detail[0].ctx?.input_truncated).toBeUndefined();
  });

  it(`caps the entries at ${MAX_DETAIL_ENTRIES} and gives the full count in x-validation-errors`, async () => {
    const questions = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`q${i}`, 1]));
    const reply = await authed(server.url, '/v1/systemone', { body: { model: 'evalmodel-latest', state: 'x', questions } });
    expect(reply.status).toBe(422);
    conforms('HTTPValidationError', reply.json);
    expect(reply.json.detail).toHaveLength(MAX_DETAIL_ENTRIES);
    expect(Number(reply.headers['x-validation-errors'])).toBeGreaterThanOrEqual(5_000);
  });
});
