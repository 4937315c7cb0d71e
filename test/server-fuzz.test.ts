/**
 * Fuzzing the server over real sockets: thousands of malformed bodies and requests (random
 * JSON, wrong types, deep nesting, huge strings, invalid UTF-8, truncated bodies, bodies that
 * stop arriving, garbage instead of HTTP). Every one must get a 4xx answer with a JSON body,
 * and the server must still serve valid requests afterwards.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerHandle } from '../src/server/index.js';
import { authed, parseRaw, rawExchange, sampleRequest, start } from './server/helpers.js';

let server: ServerHandle;
let sent = 0;

beforeAll(async () => {
  server = await start({
    rateLimits: { requestsPerMinute: 0, inputTokensPerSecond: 0 },
    maxBodyBytes: 512 * 1024,
    bodyTimeoutMs: 250,
    maxQueued: 10_000,
  });
});

afterAll(async () => {
  await server?.close();
});

/** Asserts a 4xx reply with a JSON error body (either shape). */
function expectClientError(status: number, text: string, what: string): void {
  expect(status, `${what}: ${text.slice(0, 300)}`).toBeGreaterThanOrEqual(400);
  expect(status, `${what}: ${text.slice(0, 300)}`).toBeLessThan(500);
  const body = JSON.parse(text) as { error?: { code?: unknown }; detail?: unknown };
  const ok = (typeof body.error?.code === 'string') || Array.isArray(body.detail);
  expect(ok, `${what}: ${text.slice(0, 300)}`).toBe(true);
}

async function post(body: Buffer | string, what: string): Promise<number> {
  sent++;
  const reply = await authed(server.url, '/v1/systemone', { body });
  expect(reply.headers['content-type'], what).toMatch(/^application\/json/);
  expectClientError(reply.status, reply.text, what);
  return reply.status;
}

const json = fc.jsonValue({ maxDepth: 6 });
const question = fc.record(
  {
    type: fc.oneof(fc.constantFrom('noul', 'choice', 'score', 'rank', 'NOUL', ''), json),
    instructions: json,
    criteria: fc.oneof(json, fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.constant(null), json)), fc.array(json)),
    document: json,
  },
  { requiredKeys: [] },
);
/** Request-shaped objects with wrong types; `model` never names a real model. */
const wrongTypes = fc.record(
  {
    state: fc.oneof(json, fc.string(), fc.constant(null)),
    model: fc.oneof(fc.string(), fc.constantFrom('evalmodel-9.9.9', 'evalmodel-latest ', 'EVALMODEL-LATEST'), json),
    questions: fc.oneof(json, fc.dictionary(fc.string(), fc.oneof(question, json), { maxKeys: 6 })),
    document: json,
    prompts: json,
  },
  { requiredKeys: [] },
);

describe('fuzz: malformed bodies always get a 4xx JSON answer', () => {
  it('random JSON values', async () => {
    await fc.assert(
      fc.asyncProperty(json, async (value) => {
        await post(JSON.stringify(value), 'random JSON');
      }),
      { numRuns: 700 },
    );
  });

  it('request-shaped objects with wrong types', async () => {
    await fc.assert(
      fc.asyncProperty(wrongTypes, async (value) => {
        await post(JSON.stringify(value), 'wrong types');
      }),
      { numRuns: 1200 },
    );
  });

  it('deep nesting, balanced or not, at the top or inside the state', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 250_000 }),
        fc.constantFrom('array', 'object', 'state-array', 'state-object', 'unbalanced', 'question'),
        async (depth, shape) => {
          // An unknown versioned model: shallow, otherwise valid bodies end in 400, never 200.
          let body: string;
          if (shape === 'array') body = '['.repeat(depth) + ']'.repeat(depth);
          else if (shape === 'object') body = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
          else if (shape === 'state-array') body = `{"state":${'['.repeat(depth)}${']'.repeat(depth)},"model":"evalmodel-0.0.0","questions":{"q":{"type":"noul"}}}`;
          else if (shape === 'state-object')
            body = `{"state":${'{"a":'.repeat(depth)}"x"${'}'.repeat(depth)},"model":"evalmodel-0.0.0","questions":{"q":{"type":"noul"}}}`;
          else if (shape === 'question')
            body = `{"state":"x","model":"evalmodel-0.0.0","questions":{"q":{"type":"choice","criteria":{"a":${'['.repeat(depth)}${']'.repeat(depth)}}}}}`;
          else body = '['.repeat(depth);
          await post(body, `nesting ${shape} ${depth}`);
        },
      ),
      { numRuns: 120 },
    );
  });

  it('huge strings, under and over the byte limit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1_000, max: 1_500_000 }), fc.constantFrom('x', 'é', '😀', '\\n', '\\u0000'), fc.boolean(), async (n, unit, validModel) => {
        const model = validModel ? 'evalmodel-latest' : 'x';
        // The state is huge; the questions are missing, so the answer is 422 or 413 (never 200).
        const body = `{"state":"${unit.repeat(Math.ceil(n / unit.length))}","model":"${model}"}`;
        const status = await post(body, `huge ${n}`);
        if (Buffer.byteLength(body) > 512 * 1024) expect(status).toBe(413);
      }),
      { numRuns: 60 },
    );
  });

  it('invalid UTF-8 bytes, raw or inside otherwise valid JSON', async () => {
    const bad = fc.constantFrom(
      [0x80],
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xff],
      [0xfe, 0xff],
      [0xc3],
    );
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 3_000 }), async (bytes) => {
        await post(Buffer.from(bytes), 'random bytes');
      }),
      { numRuns: 400 },
    );
    await fc.assert(
      fc.asyncProperty(bad, fc.integer({ min: 0, max: 10 }), async (seq, at) => {
        const text = JSON.stringify(sampleRequest());
        const cut = text.indexOf('"', 10 + at);
        const body = Buffer.concat([Buffer.from(text.slice(0, cut)), Buffer.from(seq), Buffer.from(text.slice(cut))]);
        const status = await post(body, `bad utf-8 ${seq}`);
        expect(status).toBe(400);
      }),
      { numRuns: 100 },
    );
  });

  it('truncated bodies and lone surrogates', async () => {
    const text = JSON.stringify(sampleRequest());
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: text.length - 1 }), async (n) => {
        const status = await post(text.slice(0, n), `truncated at ${n}`);
        expect(status).toBe(400);
      }),
      { numRuns: 300 },
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('\\ud800', '\\udfff', 'a\\ud83d', '\\udc00\\ud800'), fc.constantFrom('state', 'model', 'id'), async (s, where) => {
        const req = sampleRequest() as Record<string, any>;
        let body = JSON.stringify(req);
        if (where === 'state') body = body.replace('"The parcel', `"${s}The parcel`);
        else if (where === 'model') body = body.replace('"evalmodel-latest"', `"evalmodel-latest${s}"`);
        else body = body.replace('"unhappy"', `"unhappy${s}"`);
        const status = await post(body, `surrogate in ${where}`);
        expect([400, 422]).toContain(status);
      }),
      { numRuns: 30 },
    );
  });

  it('bodies that stop arriving: 408 with a JSON body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 5_000 }), fc.integer({ min: 0, max: 100 }), async (declared, percent) => {
        sent++;
        const text = JSON.stringify(sampleRequest()).padEnd(declared, ' ').slice(0, declared);
        const partial = text.slice(0, Math.min(declared - 1, Math.floor((declared * percent) / 100)));
        const head = `POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-key\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`;
        const raw = parseRaw(await rawExchange(server.port, head + partial));
        expect(raw.status).toBe(408);
        expectClientError(raw.status, raw.body, 'stalled body');
      }),
      { numRuns: 16 },
    );
  });

  it('garbage instead of HTTP: 400 with a JSON body', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 200 }).map((s) => `${s}\r\n\r\n`),
          fc.constantFrom(
            'GET / HTTP/9.9\r\n\r\n',
            'POST /v1/systemone HTTP/1.1\r\nContent-Length: -1\r\n\r\n',
            'POST /v1/systemone HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n',
            'POST /v1/systemone HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
            'GET /v1/models HTTP/1.1\r\nBad Header\r\n\r\n',
            '\x00\x01\x02\r\n\r\n',
          ),
        ),
        async (data) => {
          sent++;
          const raw = await rawExchange(server.port, data, { endAfterWrite: true });
          if (raw === '') return; // closed without a word is allowed only for an empty request line
          const reply = parseRaw(raw);
          expectClientError(reply.status, reply.body, `garbage ${JSON.stringify(data).slice(0, 80)}`);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('still serves valid requests, with nothing left in flight', async () => {
    expect(sent).toBeGreaterThan(2_500);
    const deadline = Date.now() + 10_000;
    while (server.stats().inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(server.stats()).toEqual({ inFlight: 0, running: 0, queued: 0, queuedWork: 0 });
    const ok = await authed(server.url, '/v1/systemone', { body: sampleRequest() });
    expect(ok.status).toBe(200);
    expect(process.memoryUsage().heapUsed).toBeLessThan(2 * 1024 ** 3);
  });
});
