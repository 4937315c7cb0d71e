/**
 * Drain and write timeouts over real sockets: during a graceful shutdown, requests on kept-alive
 * connections get 503 with retry headers (never a reset), and a client that never reads its
 * reply does not keep its connection past the write timeout.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../src/engine/contract.js';
import type { ServerHandle } from '../src/server/index.js';
import { bind, sampleRequest, sharedEngine, start } from './server/helpers.js';


let engine: Engine;
beforeAll(async () => {
  engine = await sharedEngine();
  await engine.evaluate(sampleRequest('warm up'));
});
afterAll(() => engine?.close());

/** For each 503 seen: whether it carried both retry headers. */
const retryHeaders: boolean[] = [];

/** One request on `agent`; resolves to the status, or the error code of a failed exchange. */
function send(url: string, agent: http.Agent, path: string, body?: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = http.request(new URL(path, url), {
      method: body ? 'POST' : 'GET',
      agent,
      headers: { authorization: 'Bearer test-key', ...(body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) },
    });
    req.on('response', (res) => {
      if (res.statusCode === 503) retryHeaders.push(res.headers['retry-after-ms'] !== undefined && res.headers['retry-after'] !== undefined);
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    });
    req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
    req.end(body);
  });
}

describe('graceful drain on kept-alive connections', () => {
  it('answers requests on existing connections with 503 and retry headers, never a reset', async () => {
    // An engine that answers after 20 ms, so that many requests cross the start of the drain.
    const slow: Engine = { ...bind(engine), evaluate: async (...args: unknown[]) => {
      await new Promise((r) => setTimeout(r, 20));
      return (engine.evaluate as (...a: unknown[]) => ReturnType<Engine['evaluate']>)(...args);
    } } as Engine;
    const s = await start({ engine: slow });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 12 });
    const body = JSON.stringify(sampleRequest('The parcel arrived late.'));
    const outcomes: (number | string)[] = [];
    let stop = false;
    // 12 clients in closed loops, half on the light GET route, half evaluating.
    const clients = Array.from({ length: 12 }, (_, i) => (async () => {
      while (!stop) {
        const outcome = await send(s.url, agent, i % 2 ? '/v1/models' : '/v1/systemone', i % 2 ? undefined : body);
        outcomes.push(outcome);
        if (outcome !== 200) break;
      }
    })());
    await new Promise((r) => setTimeout(r, 600));
    const closing = s.close();
    await Promise.race([Promise.all(clients), new Promise((r) => setTimeout(r, 5_000))]);
    stop = true;
    await closing;
    agent.destroy();
    // Kept-alive and new connections alike get 503 while work is in flight: never a reset.
    const resets = outcomes.filter((o) => typeof o === 'string');
    expect(resets, `outcomes: ${JSON.stringify(outcomes.filter((o) => o !== 200))}`).toEqual([]);
    expect(outcomes.filter((o) => o === 200).length, JSON.stringify(outcomes.filter((o) => o !== 200))).toBeGreaterThan(0);
    // Each client that sent again during the drain was told 503, with retry headers.
    expect(outcomes.filter((o) => o === 503).length).toBe(12);
    expect(retryHeaders.every(Boolean)).toBe(true);
  }, 30_000);
});

describe('write timeout', () => {
  let s: ServerHandle;
  beforeAll(async () => {
    s = await start({ writeTimeoutMs: 300 });
  });
  afterAll(() => s?.close());

  it('closes the connection of a client that never reads a reply larger than the socket buffers', async () => {
    // Replies of 13 KB (the OpenAPI document), pipelined until they exceed the socket buffers.
    const socket = net.connect(s.port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.pause(); // never read
    const request = 'GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n';
    socket.write(request.repeat(2_000));
    const started = performance.now();
    // A paused client notices nothing until it reads: the server's side is what must close.
    const connections = () => new Promise<number>((resolve) => s.server.getConnections((_e, n) => resolve(n)));
    await new Promise((r) => setTimeout(r, 100));
    expect(await connections()).toBe(1);
    while ((await connections()) > 0) {
      if (performance.now() - started > 10_000) throw new Error('connection still open after 10 s');
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(performance.now() - started).toBeLessThan(5_000);
    socket.destroy();
  }, 20_000);
});
