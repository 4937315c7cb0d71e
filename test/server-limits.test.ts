/**
 * Integration tests of the HTTP server over real sockets: 408, 413, 415, 422, 429, 500 and 529.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine/contract.js';
import type { ServerHandle } from '../src/server/index.js';
import { REQUEST_ID, authed, bind, gatedEngine, parseRaw, rawExchange, sampleRequest, start } from './server/helpers.js';
import { conforms, expectError, until, closeShared, openShared } from './server/assertions.js';

let engine: Engine;
let server: ServerHandle;
beforeAll(async () => void ({ engine, server } = await openShared()));
afterAll(() => closeShared({ engine, server }));

describe('408, 413 and 415', () => {
  let strict: ServerHandle;
  beforeAll(async () => {
    strict = await start({ bodyTimeoutMs: 300, maxBodyBytes: 2_000 });
  });
  afterAll(() => strict?.close());

  it('answers 408 when the body does not arrive in time, and closes the connection', async () => {
    const head = 'POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-key\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"state":';
    const started = Date.now();
    const raw = parseRaw(await rawExchange(strict.port, head));
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(raw.status).toBe(408);
    expect(raw.headers.connection).toBe('close');
    expect(JSON.parse(raw.body).error.code).toBe('body_timeout');
  });

  it('answers 408 with a JSON body when the headers do not arrive in time', async () => {
    const slow = await start({ headersTimeoutMs: 300 });
    try {
      const raw = parseRaw(await rawExchange(slow.port, 'GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthoriz'));
      expect(raw.status).toBe(408);
      expect(raw.headers['x-service-request-id']).toMatch(REQUEST_ID);
      expect(JSON.parse(raw.body).error.code).toBe('headers_timeout');
    } finally {
      await slow.close();
    }
  });

  it('answers 413 for a declared length over the limit, before reading it', async () => {
    const reply = await authed(strict.url, '/v1/systemone', { body: { ...sampleRequest(), state: 'x'.repeat(5_000) } });
    expectError(reply, 413, 'body_too_large');
    expect(reply.json.error.limit_bytes).toBe(2_000);
  });

  it('answers 413 for a chunked body that grows over the limit', async () => {
    const reply = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = http.request(new URL('/v1/systemone', strict.url), {
        method: 'POST',
        agent: false,
        headers: { authorization: 'Bearer test-key', 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      });
      req.on('error', reject);
      req.write('{"state":"');
      for (let i = 0; i < 10; i++) req.write('y'.repeat(500));
      req.end('"}');
    });
    expect(reply.status).toBe(413);
    expect(reply.body.error.code).toBe('body_too_large');
  });

  it('keeps the connection usable after answering an unread body early', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await authed(strict.url, '/v1/systemone', { body: sampleRequest(), agent }, 'wrong');
      expect(first.status).toBe(401);
      const second = await authed(strict.url, '/v1/models', { agent });
      expect(second.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('answers 415 for another content type or a content encoding', async () => {
    const body = JSON.stringify(sampleRequest());
    expectError(await authed(strict.url, '/v1/systemone', { body, headers: { 'content-type': 'text/plain' } }), 415, 'unsupported_content_type');
    expectError(
      await authed(strict.url, '/v1/systemone', { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } }),
      415,
      'unsupported_content_type',
    );
    expectError(await authed(strict.url, '/v1/systemone', { body, headers: { 'content-encoding': 'gzip' } }), 415, 'unsupported_content_encoding');
  });
});

describe('422', () => {
  it('reports every problem at once in the HTTPValidationError shape (rules 2-5)', async () => {
    const reply = await authed(server.url, '/v1/systemone', { body: { document: 'hello', questions: {} } });
    expect(reply.status).toBe(422);
    conforms('HTTPValidationError', reply.json);
    const detail = reply.json.detail as { loc: (string | number)[]; type: string }[];
    const at = (loc: string) => detail.filter((d) => d.loc.join('.') === loc).map((d) => d.type);
    expect(at('body.state')).toContain('missing');
    expect(at('body.model')).toContain('missing');
    expect(at('body.document').length).toBeGreaterThan(0);
    expect(detail.some((d) => d.loc.join('.') === 'body.questions')).toBe(true);
  });

  it('rejects questions without or with an unknown type, and choice/score without criteria (rule 4)', async () => {
    const reply = await authed(server.url, '/v1/systemone', {
      body: {
        state: 'x',
        model: 'evalmodel-latest',
        questions: { a: { instructions: 'no type' }, b: { type: 'rank' }, c: { type: 'choice' }, d: { type: 'score' } },
      },
    });
    expect(reply.status).toBe(422);
    const locs = (reply.json.detail as { loc: (string | number)[] }[]).map((d) => d.loc.slice(0, 3).join('.'));
    for (const id of ['a', 'b', 'c', 'd']) expect(locs).toContain(`body.questions.${id}`);
  });

  it('answers 422 for content nested past the validator bound, and 400 for absurd nesting', async () => {
    const nested = (depth: number) => `{"state":${'['.repeat(depth)}${']'.repeat(depth)},"model":"evalmodel-latest","questions":{"a":{"type":"noul"}}}`;
    const deep = await authed(server.url, '/v1/systemone', { body: nested(900) });
    expect(deep.status).toBe(422);
    expect(deep.json.detail[0].type).toBe('too_deep');
    const absurd = await authed(server.url, '/v1/systemone', { body: nested(200_000) });
    expectError(absurd, 400, 'json_too_deep');
    // Brackets inside strings do not count.
    const inString = await authed(server.url, '/v1/systemone', { body: { ...sampleRequest(), state: '['.repeat(5_000) } });
    expect(inString.status).toBe(200);
  });
});

describe('429', () => {
  it('limits requests per minute per key, with retry-after and retry-after-ms', async () => {
    const limited = await start({ keys: ['k1', 'k2'], rateLimits: { requestsPerMinute: 2, inputTokensPerSecond: 0 } });
    try {
      const body = sampleRequest('Rate me.');
      expect((await authed(limited.url, '/v1/systemone', { body }, 'k1')).status).toBe(200);
      expect((await authed(limited.url, '/v1/systemone', { body: { nope: 1 } }, 'k1')).status).toBe(422);
      const refused = await authed(limited.url, '/v1/systemone', { body }, 'k1');
      expectError(refused, 429, 'rate_limited');
      expect(refused.json.error.limit).toBe('requests_per_minute');
      const ms = Number(refused.headers['retry-after-ms']);
      expect(ms).toBeGreaterThan(25_000);
      expect(ms).toBeLessThanOrEqual(30_000);
      expect(Number(refused.headers['retry-after'])).toBe(Math.ceil(ms / 1000));
      // Another key has its own bucket; the listing is not rate limited.
      expect((await authed(limited.url, '/v1/systemone', { body }, 'k2')).status).toBe(200);
      expect((await authed(limited.url, '/v1/models', {}, 'k1')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('limits input tokens per second, charged from usage, and admits again after the advertised delay', async () => {
    const limited = await start({ rateLimits: { requestsPerMinute: 0, inputTokensPerSecond: 20 } });
    try {
      const body = sampleRequest('A rather long complaint about a parcel that arrived late, broken, and without the manual.');
      const first = await authed(limited.url, '/v1/systemone', { body });
      expect(first.status).toBe(200);
      expect(first.json.usage.input_tokens).toBeGreaterThan(20);
      const refused = await authed(limited.url, '/v1/systemone', { body });
      expectError(refused, 429, 'rate_limited');
      expect(refused.json.error.limit).toBe('input_tokens_per_second');
      const ms = Number(refused.headers['retry-after-ms']);
      // Debt is capped at one bucket: at most (20 + 1) / 20 s.
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(1_050);
      await new Promise((r) => setTimeout(r, ms + 20));
      expect((await authed(limited.url, '/v1/systemone', { body })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('500', () => {
  it('answers an internal failure with the request id and no stack or internal message', async () => {
    const lines: string[] = [];
    const broken: Engine = {
      ...bind(engine),
      evaluate: (async () => {
        throw new TypeError('internal detail: secret-path /srv/x at Object.<anonymous>');
      }) as Engine['evaluate'],
    };
    const s = await start({ engine: broken, log: (l) => lines.push(l) });
    try {
      const reply = await authed(s.url, '/v1/systemone', { body: sampleRequest() });
      expectError(reply, 500, 'internal_error');
      expect(reply.json.error.message).toContain(reply.headers['x-service-request-id']);
      expect(reply.text).not.toMatch(/secret|TypeError|\bat\b.*:\d+|stack/);
      // The cause is logged, under the same id.
      const record = lines.map((l) => JSON.parse(l)).find((r) => r.status === 500);
      expect(record.id).toBe(reply.headers['x-service-request-id']);
      expect(record.error).toContain('secret-path');
      // The server still works.
      expect((await authed(s.url, '/v1/models')).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('529', () => {
  it('refuses work beyond the queue bound with retry headers, and finishes what it accepted', async () => {
    const gated = gatedEngine(engine);
    const s = await start({ engine: gated.engine, concurrency: 1, maxQueued: 1 });
    try {
      const a = authed(s.url, '/v1/systemone', { body: sampleRequest('first') });
      await until(() => gated.started() === 1);
      const b = authed(s.url, '/v1/systemone', { body: sampleRequest('second') });
      await until(() => s.stats().queued === 1);
      const c = await authed(s.url, '/v1/systemone', { body: sampleRequest('third') });
      expectError(c, 529, 'overloaded');
      expect(Number(c.headers['retry-after-ms'])).toBeGreaterThan(0);
      expect(Number(c.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Not an evaluation: the listing still answers at once.
      expect((await authed(s.url, '/v1/models')).status).toBe(200);
      gated.release();
      await until(() => gated.started() === 2);
      gated.release();
      expect((await a).status).toBe(200);
      expect((await b).status).toBe(200);
      expect(s.stats()).toEqual({ inFlight: 0, running: 0, queued: 0, queuedWork: 0 });
    } finally {
      gated.release();
      await s.close();
    }
  });
});
