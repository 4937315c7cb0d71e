/**
 * Conformance with the official JavaScript client of the interface, `@typesafe-ai/sdk`
 * (0.6.0), configured the way its users configure it: TYPESAFE_BASE_URL and TYPESAFE_API_KEY.
 * The client talks to a real server on loopback over real sockets.
 */
import {
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  PermissionDeniedError,
  RateLimitError,
  TypeSafeClient,
  UnprocessableEntityError,
  choice,
  noul,
  score,
} from '@typesafe-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine/contract.js';
import type { ServerHandle } from '../src/server/index.js';
import { REQUEST_ID, gatedEngine, sharedEngine, start } from './server/helpers.js';

let engine: Engine;
let server: ServerHandle;
const saved = { ...process.env };

beforeAll(async () => {
  engine = await sharedEngine();
  server = await start({ keys: ['sk-conformance', { key: 'sk-preview-only', models: ['evalmodel-preview'] }] });
  process.env.TYPESAFE_BASE_URL = server.url;
  process.env.TYPESAFE_API_KEY = 'sk-conformance';
  process.env.TYPESAFE_DEFAULT_MODEL = 'evalmodel-latest';
  process.env.TYPESAFE_LOG_LEVEL = 'off';
});

afterEach(() => {
  process.env.TYPESAFE_API_KEY = 'sk-conformance';
  process.env.TYPESAFE_DEFAULT_MODEL = 'evalmodel-latest';
});

afterAll(async () => {
  for (const k of ['TYPESAFE_BASE_URL', 'TYPESAFE_API_KEY', 'TYPESAFE_DEFAULT_MODEL', 'TYPESAFE_LOG_LEVEL']) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  await server?.close();
  await engine?.close();
});

describe('@typesafe-ai/sdk against evalmodel serve', () => {
  it('reads its configuration from the environment', () => {
    const client = new TypeSafeClient();
    expect(client.baseURL).toBe(server.url);
    expect(client.defaultModel).toBe('evalmodel-latest');
  });

  it('lists models', async () => {
    const models = await new TypeSafeClient().models.list();
    expect(models).toEqual(engine.listModels().models);
    const { requestId } = await new TypeSafeClient().models.list().withResponse();
    expect(requestId).toMatch(REQUEST_ID);
  });

  it('asks noul, choice and score questions and parses the answers', async () => {
    const client = new TypeSafeClient();
    const { data, requestId } = await client
      .systemOne({
        state: { ticket: 'I was charged twice for one order. Please fix this ASAP.', channel: 'email' },
        questions: {
          urgent: noul('Is the customer asking for quick action?', { true: 'asks for speed', false: 'no time pressure' }),
          category: choice('What is this ticket about?', { billing: 'payments, charges, refunds', technical: null, other: null }),
          tone: score('How upset is the customer?', ['calm', 'annoyed', 'angry']),
        },
      })
      .withResponse();
    expect(requestId).toMatch(REQUEST_ID);
    expect(data.model).toBe(engine.resolveModel('evalmodel-latest'));
    expect(data.answers.urgent.type).toBe('noul');
    expect(data.answers.urgent.noul).toBeGreaterThanOrEqual(0);
    expect(data.answers.urgent.noul).toBeLessThanOrEqual(1);
    expect(['billing', 'technical', 'other']).toContain(data.answers.category.choice);
    expect(Object.keys(data.answers.category.probabilities).sort()).toEqual(['billing', 'other', 'technical']);
    expect(data.answers.category.confidence).toBeGreaterThanOrEqual(0);
    expect(data.answers.tone.legend).toEqual({ '0': 'calm', '1': 'annoyed', '2': 'angry' });
    expect(data.answers.tone.score).toBeGreaterThanOrEqual(0);
    expect(data.answers.tone.score).toBeLessThanOrEqual(2);
    expect(data.usage.input_tokens).toBeGreaterThan(0);
    expect(data.usage.output_tokens).toBe(0);
  });

  it('sends an explicit model, alias or versioned id', async () => {
    const versioned = engine.resolveModel('evalmodel-latest');
    const res = await new TypeSafeClient().systemOne({ model: versioned, state: 'Fine.', questions: { ok: noul('Is it fine?') } });
    expect(res.model).toBe(versioned);
  });

  it('maps 401 to AuthenticationError with our message and request id', async () => {
    process.env.TYPESAFE_API_KEY = 'sk-wrong';
    const error = await new TypeSafeClient()
      .systemOne({ state: 'x', questions: { a: noul('Is it?') } })
      .then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    const e = error as AuthenticationError;
    expect(e.status).toBe(401);
    expect(e.message).toBe('401 Invalid API key.');
    expect(e.requestId).toMatch(REQUEST_ID);
  });

  it('renders 422 validation details into its message', async () => {
    const client = new TypeSafeClient();
    const error = await client
      .systemOne({
        state: 'x',
        // A choice question without criteria and a question of an unknown type, as raw objects.
        questions: { pick: { type: 'choice', instructions: 'Which?' } as never, odd: { type: 'rank', instructions: 'Rank it' } as never },
      })
      .then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    const e = error as UnprocessableEntityError;
    const detail = (e.body as { detail: { loc: (string | number)[]; msg: string }[] }).detail;
    expect(detail.length).toBeGreaterThanOrEqual(2);
    // The client's rendering: "<status> <loc without 'body'>: <msg>; ..." for every entry.
    const expected = detail.map((d) => `${d.loc.filter((x) => x !== 'body').join('.')}: ${d.msg}`).join('; ');
    expect(e.message).toBe(`422 ${expected}`);
    expect(e.message).toContain('questions.pick');
    expect(e.message).toContain('questions.odd');
  });

  it('maps an unknown model to BadRequestError naming it', async () => {
    process.env.TYPESAFE_DEFAULT_MODEL = 'jev-latest';
    const error = await new TypeSafeClient()
      .systemOne({ state: 'x', questions: { a: noul('Is it?') } })
      .then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).message).toMatch(/^400 Unknown model 'jev-latest'/);
    // It names what this server serves and the client setting to change.
    expect((error as BadRequestError).message).toContain('This server serves: evalmodel-latest, evalmodel-preview.');
    expect((error as BadRequestError).message).toContain('set TYPESAFE_DEFAULT_MODEL=evalmodel-latest');
  });

  it('maps a model outside the key scope to PermissionDeniedError', async () => {
    const error = await new TypeSafeClient({ apiKey: 'sk-preview-only', retry: { maxRetries: 0 } })
      .systemOne({ state: 'x', questions: { a: noul('Is it?') } })
      .then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    const ok = await new TypeSafeClient({ apiKey: 'sk-preview-only', defaultModel: 'evalmodel-preview' }).models.list();
    expect(ok.map((m) => m.name)).toEqual(['evalmodel-preview']);
  });
});

describe('retries', () => {
  /** A fetch that records each attempt's start time, status and retry headers. */
  function recordingFetch() {
    const attempts: { at: number; status: number; retryAfterMs: number | null; retryCount: string | null }[] = [];
    const fetchImpl = async (input: string | URL | Request, init?: RequestInit) => {
      const at = performance.now();
      const headers = new Headers(init?.headers);
      const res = await fetch(input, init);
      const ms = res.headers.get('retry-after-ms');
      attempts.push({ at, status: res.status, retryAfterMs: ms === null ? null : Number(ms), retryCount: headers.get('x-typesafe-retry-count') });
      return res;
    };
    return { attempts, fetch: fetchImpl as typeof fetch };
  }

  it('retries a 429 after the retry-after-ms the server sent', async () => {
    const limited = await start({ keys: ['sk-limited'], rateLimits: { requestsPerMinute: 0, inputTokensPerSecond: 20 } });
    try {
      const rec = recordingFetch();
      const client = new TypeSafeClient({ baseURL: limited.url, apiKey: 'sk-limited', fetch: rec.fetch });
      const questions = { a: noul('Is the customer unhappy about the late and broken parcel delivery?') };
      const state = 'The parcel arrived two weeks late, the box was crushed and the manual was missing entirely.';
      const first = await client.systemOne({ state, questions });
      expect(first.usage.input_tokens).toBeGreaterThan(30);
      // The bucket is now in debt: the next call is refused once, then admitted.
      const second = await client.systemOne({ state, questions });
      expect(second.answers.a.type).toBe('noul');
      expect(rec.attempts.map((a) => a.status)).toEqual([200, 429, 200]);
      const refused = rec.attempts[1]!;
      const retried = rec.attempts[2]!;
      expect(refused.retryAfterMs).toBeGreaterThan(0);
      expect(retried.retryCount).toBe('1');
      // Waited the server's delay (the SDK prefers retry-after-ms), not its 500 ms backoff.
      expect(retried.at - refused.at).toBeGreaterThanOrEqual(refused.retryAfterMs! - 5);
      expect(refused.retryAfterMs!).toBeGreaterThan(500);
    } finally {
      await limited.close();
    }
  });

  it('surfaces RateLimitError with retryAfterMs once its retries are spent', async () => {
    const limited = await start({ keys: ['sk-rpm'], rateLimits: { requestsPerMinute: 1, inputTokensPerSecond: 0 } });
    try {
      const client = new TypeSafeClient({ baseURL: limited.url, apiKey: 'sk-rpm', retry: { maxRetries: 0 } });
      await client.systemOne({ state: 'x', questions: { a: noul('Is it?') } });
      const error = await client.systemOne({ state: 'x', questions: { a: noul('Is it?') } }).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterMs).toBeGreaterThan(55_000);
    } finally {
      await limited.close();
    }
  });

  it('retries a 529 and succeeds once the queue has room', async () => {
    const gated = gatedEngine(engine);
    const s = await start({ keys: ['sk-q'], engine: gated.engine, concurrency: 1, maxQueued: 0 });
    try {
      const rec = recordingFetch();
      const client = new TypeSafeClient({ baseURL: s.url, apiKey: 'sk-q', fetch: rec.fetch, retry: { maxRetries: 3 } });
      const blocker = client.systemOne({ state: 'first', questions: { a: noul('Is it?') } });
      while (gated.started() < 1) await new Promise((r) => setTimeout(r, 5));
      const second = client.systemOne({ state: 'second', questions: { a: noul('Is it?') } });
      while (!rec.attempts.some((a) => a.status === 529)) await new Promise((r) => setTimeout(r, 5));
      gated.release();
      await blocker;
      while (gated.started() < 2) await new Promise((r) => setTimeout(r, 5));
      gated.release();
      expect((await second).answers.a.type).toBe('noul');
      expect(rec.attempts.some((a) => a.status === 529 && a.retryAfterMs !== null)).toBe(true);
    } finally {
      gated.release();
      await s.close();
    }
  });

  it('maps a 500 to InternalServerError carrying the request id', async () => {
    const broken: Engine = { ...engine, evaluate: (async () => Promise.reject(new Error('boom'))) as Engine['evaluate'], close: async () => undefined };
    const s = await start({ keys: ['sk-500'], engine: broken });
    try {
      const client = new TypeSafeClient({ baseURL: s.url, apiKey: 'sk-500', retry: { maxRetries: 0 } });
      const error = await client.systemOne({ state: 'x', questions: { a: noul('Is it?') } }).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(InternalServerError);
      const e = error as InternalServerError;
      expect(e.requestId).toMatch(REQUEST_ID);
      expect(e.message).toContain(e.requestId!);
      expect(e.message).not.toContain('boom');
    } finally {
      await s.close();
    }
  });
});
