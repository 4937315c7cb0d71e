/**
 * Integration tests of the HTTP server: a real server on 127.0.0.1 (port 0) over the real
 * engine, driven over real sockets: requests, listings, 404, 400, 401 and 403. The other statuses
 * of docs/http.md are in server-limits.test.ts, shutdown, logs and sockets in server-lifecycle.test.ts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine/contract.js';
import { openApiDocument, serve, type ServerHandle } from '../src/server/index.js';
import { REQUEST_ID, authed, call, parseRaw, rawExchange, sampleRequest } from './server/helpers.js';
import { conforms, expectError, closeShared, openShared } from './server/assertions.js';

let engine: Engine;
let server: ServerHandle;
let versionedId: string;
beforeAll(async () => void ({ engine, server, versionedId } = await openShared()));
afterAll(() => closeShared({ engine, server }));

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
      ['200', '400', '401', '403', '404', '408', '413', '415', '422', '429', '500', '503', '504', '529'].sort(),
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
