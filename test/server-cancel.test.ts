/**
 * Cancellation that stops work, over a real socket: a client that hangs up during a long
 * state's encoding frees the engine at the next window boundary, so the next small request is
 * answered at once, in the in-process engine and in a pool of worker threads.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEnginePool } from '../src/engine/pool.js';
import { readEncoderWork } from '../src/encoder/index.js';
import type { ServerHandle } from '../src/server/index.js';
import { authed, sampleRequest, sharedEngine, smallRequestBound, start } from './server/helpers.js';
import { until } from './server/assertions.js';

const workerExecArgv = ['--import', new URL('./pool-ts-register.mjs', import.meta.url).href];

const WORDS = 'parcel carrier warehouse invoice refund customer delivery address weather morning report pallet driver station river garden window'.split(' ');

/** About `tokens` tokens of English words (one token each), different on every call. */
function longState(tokens: number): string {
  const seed = Math.floor(Math.random() * 1e9);
  const out: string[] = [`case ${seed}`];
  for (let i = 0; i < tokens; i++) out.push(WORDS[(i * 7 + seed) % WORDS.length]!);
  return out.join(' ');
}

/** Sends `body`; the returned function destroys the connection and says when. */
function sendThenHangUp(url: string, body: unknown): () => number {
  const payload = Buffer.from(JSON.stringify(body));
  const req = http.request(new URL('/v1/systemone', url), {
    method: 'POST',
    agent: false,
    headers: { authorization: 'Bearer test-key', 'content-type': 'application/json', 'content-length': payload.length },
  });
  req.on('error', () => undefined);
  req.end(payload);
  return () => {
    req.destroy();
    return performance.now();
  };
}

/**
 * Two clients send 20k-token states (filling the server's two evaluation slots) and hang up
 * once `onStarted` resolves; then a small request is timed.
 */
async function smallAfterHangUps(server: ServerHandle, onStarted: () => Promise<void>): Promise<number> {
  const bigs = [1, 2].map(() => ({ ...sampleRequest(longState(20_000)), questions: { q: { type: 'noul', instructions: 'Is the parcel late?' } } }));
  expect((await sharedEngine()).countTokens(bigs[0]!.state)).toBeGreaterThan(19_000);
  const hangUps = bigs.map((big) => sendThenHangUp(server.url, big));
  await onStarted();
  for (const hangUp of hangUps) hangUp();
  // The next small request does not wait for the abandoned encodings.
  const started = performance.now();
  const small = await authed(server.url, '/v1/systemone', { body: sampleRequest(`small ${Math.random()}`) });
  const latencyMs = performance.now() - started;
  expect(small.status, small.text).toBe(200);
  await until(() => server.stats().running === 0);
  return latencyMs;
}

describe('a client that hangs up stops its evaluation', () => {
  let server: ServerHandle;
  beforeAll(async () => {
    server = await start();
    // Warm the engine (the heads load on first use), so that only the hang-up is timed.
    await authed(server.url, '/v1/systemone', { body: sampleRequest(`warm ${Math.random()}`) });
  }, 60_000);
  afterAll(() => server?.close());

  it('in the in-process engine: encoding stops at the next window, a small request is answered promptly (within 2 s, or 5x an idle one on a slower machine)', async () => {
    // Two aborted requests share the thread: each may finish its current 256-token slice.
    const bound = await smallRequestBound(server.url, 512);
    const before = readEncoderWork().tokens;
    // Wait until the encoder is into the states (a few windows done), then hang up.
    const latencyMs = await smallAfterHangUps(server, () => until(() => readEncoderWork().tokens - before > 2_000));
    expect(latencyMs).toBeLessThan(bound);
    // Far from the 40k tokens the two states would have cost.
    expect(readEncoderWork().tokens - before).toBeLessThan(10_000);
  }, 60_000);
});

for (const workers of [1, 2]) {
  describe(`a client that hangs up stops its evaluation in a pool of ${workers} worker(s)`, () => {
    let pooled: ServerHandle;
    beforeAll(async () => {
      const engine = await createEnginePool({ workers, workerExecArgv });
      pooled = await start({ engine });
      // Warm the workers.
      await Promise.all([1, 2].map(() => authed(pooled.url, '/v1/systemone', { body: sampleRequest(`warm ${Math.random()}`) })));
    }, 60_000);
    afterAll(async () => {
      await pooled?.close();
      await pooled?.engine.close();
    });

    it('stops the workers at the next window (the slots stay counted until then), and answers a small request promptly (within 2 s, or 5x an idle one on a slower machine)', async () => {
      const bound = await smallRequestBound(pooled.url);
      const before = pooled.engine.stats().encodedTokens;
      const latencyMs = await smallAfterHangUps(pooled, async () => {
        await until(() => pooled.stats().running === 2);
        // Short: on onnxruntime-node a worker encodes about 20k tokens a second, so a later
        // hang-up would find one state already done and the token bound below would not test
        // the abort.
        await new Promise((r) => setTimeout(r, 300));
      });
      expect(latencyMs).toBeLessThan(bound);
      // Every worker's counters as of its last answer (the aborted jobs' answers included).
      if (workers === 1) expect(pooled.engine.stats().encodedTokens - before).toBeLessThan(10_000);
    }, 60_000);
  });
}
