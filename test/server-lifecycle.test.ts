/**
 * Integration tests of the HTTP server over real sockets: graceful shutdown, the access log,
 * responsiveness while evaluating, and socket-level behaviour.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine/contract.js';
import type { ServerHandle } from '../src/server/index.js';
import { REQUEST_ID, authed, bind, call, gatedEngine, parseRaw, rawExchange, sampleRequest, start } from './server/helpers.js';
import { until, closeShared, openShared } from './server/assertions.js';

let engine: Engine;
let server: ServerHandle;
beforeAll(async () => void ({ engine, server } = await openShared()));
afterAll(() => closeShared({ engine, server }));

describe('graceful shutdown', () => {
  it('drains in-flight requests, answers new connections 503 while work is in flight, then resolves and refuses them', async () => {
    const gated = gatedEngine(engine);
    const s = await start({ engine: gated.engine });
    const inFlight = authed(s.url, '/v1/systemone', { body: sampleRequest('draining') });
    await until(() => gated.started() === 1);
    let closed = false;
    const closing = s.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false);
    // The listener stays open while work is in flight (closing it would reset connections
    // waiting in its backlog): a new connection is told 503, to retry elsewhere.
    const refused = await call(s.url, '/v1/models');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after-ms']).toBeDefined();
    expect(refused.headers.connection).toBe('close');
    gated.release();
    const reply = await inFlight;
    expect(reply.status).toBe(200);
    expect(reply.headers.connection).toBe('close');
    await closing;
    expect(closed).toBe(true);
    await expect(call(s.url, '/v1/models')).rejects.toThrow(/ECONNREFUSED/);
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
