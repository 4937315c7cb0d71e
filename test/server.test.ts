/**
 * Integration tests of the HTTP server: a real server on 127.0.0.1 (port 0) over the real
 * engine, driven over real sockets. Every status of docs/http.md has a test here.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine/contract.js';
import { openApiDocument, serve, type ServerHandle } from '../src/server/index.js';
import { REQUEST_ID, authed, bind, call, gatedEngine, parseRaw, rawExchange, sampleRequest, sharedEngine, start } from './server/helpers.js';

let engine: Engine;
let server: ServerHandle;
let versionedId: string;

beforeAll(async () => {
  engine = await sharedEngine();
  server = await start();
  versionedId = engine.resolveModel('evalmodel-latest');
});

afterAll(async () => {
  await server?.close();
  await engine?.close();
});

// ---------------------------------------------------------------------------------------------
// OpenAPI schemas, used to check real bodies against the served description.
const document = openApiDocument() as Record<string, any>;
const ajv = new (Ajv2020 as unknown as typeof Ajv2020.default)({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ ...document, $id: 'openapi.json' });
function conforms(schema: string, value: unknown): void {
  const validate = ajv.getSchema(`openapi.json#/components/schemas/${schema}`);
  if (!validate) throw new Error(`no schema ${schema}`);
  const ok = validate(value);
  expect(ok, `${schema}: ${JSON.stringify(validate.errors)}`).toBe(true);
}

function expectError(reply: { status: number; headers: http.IncomingHttpHeaders; json: any }, status: number, code: string): void {
  expect(reply.status).toBe(status);
  expect(reply.headers['content-type']).toMatch(/^application\/json/);
  expect(reply.json?.error?.code, JSON.stringify(reply.json)).toBe(code);
  expect(reply.json.error.request_id).toBe(reply.headers['x-service-request-id']);
  conforms('ErrorResponse', reply.json);
}

describe('POST /v1/systemone', () => {
  it('answers every question with its own type, the versioned model and usage (rules 1, 6-9)', async () => {
    const reply = await authed(server.url, '/v1/systemone', { body: sampleRequest() });
    expect(reply.status).toBe(200);
    conforms('SystemOneResponse', reply.json);
    const body = reply.json;
    expect(body.model).toBe(versionedId);
    expect(body.model).toMatch(/^evalmodel-\d+\.\d+\.\d+$/);
    expect(Object.keys(body.answers).sort()).toEqual(['anger', 'topic', 'unhappy']);
    expect(body.answers.unhappy.type).toBe('noul');
    expect(body.answers.unhappy).not.toHaveProperty('confidence');
    const topic = body.answers.topic;
    expect(topic.type).toBe('choice');
    expect(Object.keys(topic.probabilities).sort()).toEqual(['billing', 'other', 'shipping']);
    const best = Object.entries(topic.probabilities as Record<string, number>).sort((a, b) => b[1] - a[1])[0]![0];
    expect(topic.choice).toBe(best);
    const anger = body.answers.anger;
    expect(anger.legend).toEqual({ '0': 'calm', '1': 'annoyed', '2': 'furious' });
    expect(Object.keys(anger.probabilities)).toEqual(['0', '1', '2']);
    const expected = Object.entries(anger.probabilities as Record<string, number>).reduce((s, [k, p]) => s + Number(k) * p, 0);
    expect(anger.score).toBeCloseTo(expected, 9);
    expect(Number.isInteger(body.usage.input_tokens) && body.usage.input_tokens > 0).toBe(true);
    expect(Number.isInteger(body.usage.output_tokens)).toBe(true);
  });

  it('accepts the versioned id and reports it (rule 8, listing rule 2)', async () => {
    const reply = await authed(server.url, '/v1/systemone', { body: { ...sampleRequest(), model: versionedId } });
    expect(reply.status).toBe(200);
    expect(reply.json.model).toBe(versionedId);
  });

  it('sends both request-id headers, equal and shaped req_<32 hex>, on every response', async () => {
    const replies = await Promise.all([
      authed(server.url, '/v1/models'),
      call(server.url, '/v1/models'),
      call(server.url, '/nowhere'),
      call(server.url, '/openapi.json'),
      authed(server.url, '/v1/systemone', { body: '{' }),
    ]);
    const ids = new Set<string>();
    for (const r of replies) {
      const id = r.headers['x-service-request-id'] as string;
      expect(id).toMatch(REQUEST_ID);
      expect(r.headers['x-typesafe-request-id']).toBe(id);
      ids.add(id);
    }
    expect(ids.size).toBe(replies.length);
  });

  it('accepts a body without Content-Type and with a charset parameter', async () => {
    const raw = JSON.stringify(sampleRequest('Short note.'));
    const a = await authed(server.url, '/v1/systemone', { body: raw, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(a.status).toBe(200);
    const req = http.request(new URL('/v1/systemone', server.url), { method: 'POST', agent: false, headers: { authorization: 'Bearer test-key' } });
    const b = await new Promise<number>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end(raw);
    });
    expect(b).toBe(200);
  });
});

describe('GET /v1/models and GET /openapi.json', () => {
  it('lists the aliases (listing rule 1)', async () => {
    const reply = await authed(server.url, '/v1/models');
    expect(reply.status).toBe(200);
    conforms('ModelMetadataList', reply.json);
    expect(reply.json).toEqual(engine.listModels());
    const names = reply.json.models.map((m: { name: string }) => m.name);
    expect(names).toEqual(expect.arrayContaining(['evalmodel-latest', 'evalmodel-preview']));
    for (const m of reply.json.models) expect(m.release_date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('serves the OpenAPI 3.1 document without a key, with SPEC.md schema names and operation ids', async () => {
    const reply = await call(server.url, '/openapi.json');
    expect(reply.status).toBe(200);
    const doc = reply.json;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.2.0');
    for (const name of [
      'SystemOneRequest',
      'SystemOneResponse',
      'ModelMetadataList',
      'ModelMetadata',
      'HTTPValidationError',
      'ValidationError',
      'Usage',
      'NoulQuestion',
      'ChoiceQuestion',
      'ScoreQuestion',
      'NoulCriteria',
      'NoulAnswer',
      'ChoiceAnswer',
      'ScoreAnswer',
      'ErrorResponse',
    ]) {
      expect(doc.components.schemas, name).toHaveProperty(name);
    }
    expect(doc.paths['/v1/systemone'].post.operationId).toBe('systemone_v1_systemone_post');
    expect(doc.paths['/v1/models'].get.operationId).toBe('models_v1_v1_models_get');
    expect(doc.components.securitySchemes.HTTPBearer).toEqual({ type: 'http', scheme: 'bearer' });
    expect(doc.components.schemas.SystemOneRequest.required).toEqual(['state', 'model', 'questions']);
    expect(doc.components.schemas.SystemOneRequest.properties.questions.minProperties).toBe(1);
    // Every $ref resolves.
    const refs = JSON.stringify(doc).match(/"\$ref":"#\/components\/schemas\/[A-Za-z]+"/g) ?? [];
    for (const r of refs) expect(doc.components.schemas).toHaveProperty(r.split('/').pop()!.replace('"', ''));
    // Every status the server sends is described for the evaluation endpoint.
    expect(Object.keys(doc.paths['/v1/systemone'].post.responses).sort()).toEqual(
      ['200', '400', '401', '403', '404', '408', '413', '415', '422', '429', '500', '503', '529'].sort(),
    );
  });

  it('matches the checked-in docs/openapi.json', async () => {
    const { readFileSync } = await import('node:fs');
    const file = JSON.parse(readFileSync(new URL('../docs/openapi.json', import.meta.url), 'utf8'));
    expect(file).toEqual(openApiDocument());
  });
});

describe('404', () => {
  it('answers unknown paths', async () => {
    for (const p of ['/', '/v1', '/v1/systemone/', '/v2/systemone', '/preview/evaluation', '/v1/models/evalmodel-latest']) {
      const reply = await authed(server.url, p);
      expectError(reply, 404, 'unknown_path');
    }
  });

  it('answers a wrong method, naming the allowed one', async () => {
    const get = await authed(server.url, '/v1/systemone');
    expectError(get, 404, 'method_not_allowed');
    expect(get.headers.allow).toBe('POST');
    const post = await authed(server.url, '/v1/models', { body: {} });
    expectError(post, 404, 'method_not_allowed');
    expect(post.headers.allow).toBe('GET');
    const del = await authed(server.url, '/v1/systemone', { method: 'DELETE' });
    expect(del.status).toBe(404);
  });
});

describe('400', () => {
  it('answers malformed JSON', async () => {
    for (const body of ['{', '{"state": "x",}', "{'a': 1}", 'nul', '{"a":1} trailing']) {
      expectError(await authed(server.url, '/v1/systemone', { body }), 400, 'invalid_json');
    }
  });

  it('answers a body that is not a JSON object', async () => {
    for (const body of ['[]', '"state"', '42', 'null', 'true', '[{"state":"x"}]']) {
      const reply = await authed(server.url, '/v1/systemone', { body });
      expectError(reply, 400, 'invalid_body');
      expect(reply.json.error.message).toMatch(/must be a JSON object/);
    }
  });

  it('answers an empty body and invalid UTF-8', async () => {
    expectError(await authed(server.url, '/v1/systemone', { body: '' }), 400, 'empty_body');
    const bad = Buffer.concat([Buffer.from('{"state":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('","model":"evalmodel-latest","questions":{}}')]);
    expectError(await authed(server.url, '/v1/systemone', { body: bad }), 400, 'invalid_utf8');
  });

  it('answers an unknown model, naming it', async () => {
    const reply = await authed(server.url, '/v1/systemone', { body: { ...sampleRequest(), model: 'gpt-omega' } });
    expectError(reply, 400, 'unknown_model');
    expect(reply.json.error.model).toBe('gpt-omega');
    expect(reply.json.error.message).toContain("'gpt-omega'");
    expect(reply.json.error.message).toContain('evalmodel-latest');
  });

  it('answers malformed HTTP with a JSON body', async () => {
    const raw = parseRaw(await rawExchange(server.port, 'THIS IS NOT HTTP\r\n\r\n'));
    expect(raw.status).toBe(400);
    expect(raw.headers['x-service-request-id']).toMatch(REQUEST_ID);
    expect(JSON.parse(raw.body).error.code).toBe('malformed_http');
  });
});

describe('401', () => {
  it('answers a missing key on both endpoints, saying so', async () => {
    for (const [p, body] of [
      ['/v1/models', undefined],
      ['/v1/systemone', sampleRequest()],
    ] as const) {
      const reply = await call(server.url, p, { body });
      expectError(reply, 401, 'missing_api_key');
      expect(reply.headers['www-authenticate']).toBe('Bearer');
      expect(reply.json.error.message).toMatch(/Missing API key/);
    }
  });

  it('answers a malformed Authorization header', async () => {
    for (const value of ['test-key', 'Basic dGVzdC1rZXk=', 'Bearer', 'Bearer a b']) {
      const reply = await call(server.url, '/v1/models', { headers: { authorization: value } });
      expectError(reply, 401, 'malformed_authorization');
    }
  });

  it('answers an invalid key without echoing it', async () => {
    const reply = await authed(server.url, '/v1/systemone', { body: sampleRequest() }, 'sk-wrong-but-plausible');
    expectError(reply, 401, 'invalid_api_key');
    expect(reply.text).not.toContain('sk-wrong');
    // Near misses of the right key.
    for (const k of ['test-ke', 'test-key2', 'TEST-KEY', ' test-key2']) {
      expectError(await call(server.url, '/v1/models', { headers: { authorization: `Bearer ${k}` } }), 401, 'invalid_api_key');
    }
  });

  it('accepts the scheme in any case', async () => {
    const reply = await call(server.url, '/v1/models', { headers: { authorization: 'bearer test-key' } });
    expect(reply.status).toBe(200);
  });
});

describe('key sources and scopes (403)', () => {
  let scoped: ServerHandle;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'evalmodel-keys-'));
    const file = path.join(dir, 'keys');
    writeFileSync(file, '# comment\n\nall-models\npreview-only: evalmodel-preview\npinned:evalmodel-latest,' + versionedId + '\nstar:*\n');
    scoped = await serve({ host: '127.0.0.1', port: 0, log: false, engine, keysFile: file });
  });
  afterAll(() => scoped?.close());

  it('answers 403 for a model outside the key scope, and 200 inside it', async () => {
    const denied = await authed(scoped.url, '/v1/systemone', { body: sampleRequest() }, 'preview-only');
    expectError(denied, 403, 'model_not_allowed');
    expect(denied.json.error.message).toContain('evalmodel-latest');
    const versioned = await authed(scoped.url, '/v1/systemone', { body: { ...sampleRequest(), model: versionedId } }, 'preview-only');
    expectError(versioned, 403, 'model_not_allowed');
    const ok = await authed(scoped.url, '/v1/systemone', { body: { ...sampleRequest(), model: 'evalmodel-preview' } }, 'preview-only');
    expect(ok.status).toBe(200);
    expect(ok.json.model).toBe(versionedId);
    for (const key of ['all-models', 'pinned', 'star']) {
      expect((await authed(scoped.url, '/v1/systemone', { body: { ...sampleRequest(), model: versionedId } }, key)).status).toBe(200);
    }
  });

  it('lists only the models a scoped key may send', async () => {
    const preview = await authed(scoped.url, '/v1/models', {}, 'preview-only');
    expect(preview.json.models.map((m: { name: string }) => m.name)).toEqual(['evalmodel-preview']);
    const all = await authed(scoped.url, '/v1/models', {}, 'all-models');
    expect(all.json).toEqual(engine.listModels());
  });

  it('answers 400 (not 403) for an unknown model with a scoped key, and 422 for a bad body', async () => {
    expectError(await authed(scoped.url, '/v1/systemone', { body: { ...sampleRequest(), model: 'nope' } }, 'preview-only'), 400, 'unknown_model');
    expect((await authed(scoped.url, '/v1/systemone', { body: { model: 'evalmodel-preview' } }, 'preview-only')).status).toBe(422);
  });

  it('reads EVALMODEL_API_KEYS when no key is passed', async () => {
    const s = await serve({ host: '127.0.0.1', port: 0, log: false, engine, env: { EVALMODEL_API_KEYS: ' alpha , beta,,' } });
    try {
      expect((await authed(s.url, '/v1/models', {}, 'alpha')).status).toBe(200);
      expect((await authed(s.url, '/v1/models', {}, 'beta')).status).toBe(200);
      expect((await authed(s.url, '/v1/models', {}, 'gamma')).status).toBe(401);
      expect((await authed(s.url, '/v1/models', {}, '')).status).toBe(401);
    } finally {
      await s.close();
    }
  });

  it('refuses to start without keys on a non-loopback host unless told to run open', async () => {
    await expect(serve({ host: '0.0.0.0', port: 0, log: false, engine, keys: [] })).rejects.toThrow(/No API key configured/);
    await expect(serve({ host: '::', port: 0, log: false, engine, env: {} })).rejects.toThrow(/No API key configured/);
    const open = await serve({ host: '0.0.0.0', port: 0, log: false, engine, keys: [], allowOpen: true });
    try {
      expect(open.authenticated).toBe(false);
      expect((await call(`http://127.0.0.1:${open.port}`, '/v1/models')).status).toBe(200);
    } finally {
      await open.close();
    }
  });

  it('serves a loopback host open when no key is configured', async () => {
    const open = await serve({ host: '127.0.0.1', port: 0, log: false, engine, keys: [] });
    try {
      expect((await call(open.url, '/v1/systemone', { body: sampleRequest() })).status).toBe(200);
    } finally {
      await open.close();
    }
  });
});

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
      expect(s.stats()).toEqual({ inFlight: 0, running: 0, queued: 0 });
    } finally {
      gated.release();
      await s.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('drains in-flight requests, refuses new connections, then resolves', async () => {
    const gated = gatedEngine(engine);
    const s = await start({ engine: gated.engine });
    const inFlight = authed(s.url, '/v1/systemone', { body: sampleRequest('draining') });
    await until(() => gated.started() === 1);
    let closed = false;
    const closing = s.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    await expect(call(s.url, '/v1/models')).rejects.toThrow(/ECONNREFUSED/);
    gated.release();
    const reply = await inFlight;
    expect(reply.status).toBe(200);
    expect(reply.headers.connection).toBe('close');
    await closing;
    expect(closed).toBe(true);
  });

  it('answers requests that arrive on an open connection while draining with 503', async () => {
    const gated = gatedEngine(engine);
    const s = await start({ engine: gated.engine });
    // Two pipelined requests on one socket: the second arrives while the first is in flight.
    const body = JSON.stringify(sampleRequest('pipelined'));
    const request = `POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-key\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const exchange = rawExchange(s.port, `${request}GET /v1/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-key\r\n\r\n`);
    await until(() => gated.started() === 1);
    const closing = s.close();
    await new Promise((r) => setTimeout(r, 50));
    gated.release();
    const raw = await exchange;
    await closing;
    const statuses = [...raw.matchAll(/HTTP\/1\.1 (\d{3})/g)].map((m) => Number(m[1]));
    expect(statuses[0]).toBe(200);
    // The pipelined request was read either before draining began (200) or during it (503).
    if (statuses.length > 1) expect([200, 503]).toContain(statuses[1]);
  });

  it('cuts connections after the grace period', async () => {
    const gated = gatedEngine(engine);
    const s = await start({ engine: gated.engine, shutdownGraceMs: 200 });
    // Settled into a value at once: an unhandled rejection would end the worker.
    const stuck = authed(s.url, '/v1/systemone', { body: sampleRequest('stuck') }).then(
      (r) => r.status,
      (e: Error) => e,
    );
    await until(() => gated.started() === 1);
    const started = Date.now();
    await s.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await stuck).toBeInstanceOf(Error);
    gated.release();
  });
});

describe('access log', () => {
  it('writes one JSON line per request with id, status, latency and tokens, never the key or state', async () => {
    const lines: string[] = [];
    const s = await start({ keys: ['sk-very-secret-key'], log: (l) => lines.push(l) });
    try {
      const state = 'UNIQUE-STATE-MARKER the parcel arrived broken';
      const ok = await authed(s.url, '/v1/systemone', { body: sampleRequest(state) }, 'sk-very-secret-key');
      const bad = await authed(s.url, '/v1/systemone', { body: { state, model: 'evalmodel-latest' } }, 'sk-very-secret-key');
      const denied = await authed(s.url, '/v1/models', {}, 'sk-very-secret-key-2');
      await until(() => lines.filter((l) => l.includes('"msg":"request"')).length >= 3);
      const records = lines.map((l) => JSON.parse(l)).filter((r) => r.msg === 'request');
      const byId = new Map(records.map((r) => [r.id, r]));
      const okRecord = byId.get(ok.headers['x-service-request-id']);
      expect(okRecord).toMatchObject({ method: 'POST', path: '/v1/systemone', status: 200, input_tokens: ok.json.usage.input_tokens });
      expect(typeof okRecord.latency_ms).toBe('number');
      expect(byId.get(bad.headers['x-service-request-id'])).toMatchObject({ status: 422, input_tokens: null, code: 'validation_error' });
      expect(byId.get(denied.headers['x-service-request-id'])).toMatchObject({ status: 401, code: 'invalid_api_key' });
      const all = lines.join('\n');
      expect(all).not.toContain('sk-very-secret');
      expect(all).not.toContain('UNIQUE-STATE-MARKER');
    } finally {
      await s.close();
    }
  });

  it('uses the configured request-id header names', async () => {
    const s = await start({ requestIdHeaders: ['X-Request-Id'] });
    try {
      const reply = await authed(s.url, '/v1/models');
      expect(reply.headers['x-request-id']).toMatch(REQUEST_ID);
      expect(reply.headers).not.toHaveProperty('x-service-request-id');
      expect(reply.headers).not.toHaveProperty('x-typesafe-request-id');
    } finally {
      await s.close();
    }
  });
});

describe('responsiveness', () => {
  it('serves other requests between queued evaluations: one evaluation step is the longest the loop is held', async () => {
    // Each evaluation waits for a gate, then holds the event loop for 150 ms like a
    // synchronous encoder pass.
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    let started = 0;
    const blocking: Engine = {
      ...bind(engine),
      evaluate: (async (body: unknown) => {
        started++;
        await gate;
        const until = performance.now() + 150;
        while (performance.now() < until) {
          // busy
        }
        return engine.evaluate(body);
      }) as Engine['evaluate'],
    };
    const s = await start({ engine: blocking, concurrency: 1 });
    try {
      const order: string[] = [];
      const evaluations = [0, 1, 2].map((i) =>
        authed(s.url, '/v1/systemone', { body: sampleRequest(`note ${i}`) }).then((r) => {
          order.push(`eval${i}`);
          return r;
        }),
      );
      await until(() => started === 1 && s.stats().queued === 2);
      open();
      const models = authed(s.url, '/v1/models').then((r) => {
        order.push('models');
        return r;
      });
      expect((await models).status).toBe(200);
      for (const r of await Promise.all(evaluations)) expect(r.status).toBe(200);
      // Answered between two evaluations, not after all of them.
      expect(order.indexOf('models')).toBeLessThan(order.length - 1);
    } finally {
      await s.close();
    }
  });
});

describe('sockets', () => {
  it('survives clients that vanish mid-request and mid-evaluation', async () => {
    const s = await start();
    try {
      // Headers only, then gone.
      await new Promise<void>((resolve) => {
        const socket = net.connect(s.port, '127.0.0.1', () => {
          socket.write('POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-key\r\nContent-Length: 50\r\n\r\n{"st');
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 20);
        });
      });
      // Whole request, then gone before the answer.
      const body = JSON.stringify(sampleRequest('vanishing client'));
      await new Promise<void>((resolve) => {
        const socket = net.connect(s.port, '127.0.0.1', () => {
          socket.write(`POST /v1/systemone HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer test-key\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 5);
        });
      });
      await until(() => s.stats().inFlight === 0);
      expect((await authed(s.url, '/v1/systemone', { body: sampleRequest() })).status).toBe(200);
    } finally {
      await s.close();
    }
  });

  it('answers oversized headers with 431 JSON', async () => {
    const raw = parseRaw(await rawExchange(server.port, `GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(raw.status).toBe(431);
    expect(JSON.parse(raw.body).error.code).toBe('headers_too_large');
  });
});

/** Polls `check` until true (at most 10 s). */
async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 5));
  }
}
