/**
 * `serve({ workers })` / `evalmodel serve --workers N`: the server's own engine as a pool of
 * worker threads. Answers, errors and shutdown must be those of the in-process engine.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EngineConfig } from '../src/engine/contract.js';
import { parseServeArgs } from '../src/cli/serve.js';
import { resolveOptions } from '../src/server/options.js';
import { serve, type ServerHandle } from '../src/server/index.js';
import { authed, sharedEngine } from './server/helpers.js';
import os from 'node:os';

// Pool workers run the TypeScript sources through the same loader as test/pool.test.ts.
const workerExecArgv = ['--import', new URL('./pool-ts-register.mjs', import.meta.url).href];

const REQUEST = {
  model: 'evalmodel-latest',
  state: `${'The warehouse report lists every pallet received this week and the carrier for each. '.repeat(12)} The customer wants a refund.`,
  questions: {
    refund: { type: 'noul', instructions: 'Does the customer ask for a refund?' },
    team: { type: 'choice', instructions: 'Which team?', criteria: { shipping: 'Delivery', billing: 'Payments and refunds', technical: null } },
    size: { type: 'score', instructions: 'How long is the report?', criteria: ['short', 'medium', 'long'] },
  },
};

describe('serve with a pool of engine workers', () => {
  let pooled: ServerHandle;
  beforeAll(async () => {
    pooled = await serve({ host: '127.0.0.1', port: 0, log: false, keys: ['test-key'], workers: 2, engineConfig: { workerExecArgv } as EngineConfig });
  });
  afterAll(async () => {
    await pooled?.close();
    await (await sharedEngine()).close();
  });

  it('answers as the in-process engine does, bit for bit', async () => {
    const reply = await authed(pooled.url, '/v1/systemone', { body: REQUEST });
    expect(reply.status, reply.text).toBe(200);
    const local = await (await sharedEngine()).evaluate(REQUEST);
    expect(reply.json).toEqual(JSON.parse(JSON.stringify(local)));
    // Concurrent requests spread over both workers and still answer the same.
    const replies = await Promise.all([1, 2, 3, 4].map(() => authed(pooled.url, '/v1/systemone', { body: REQUEST })));
    for (const r of replies) expect(r.json).toEqual(reply.json);
  });

  it('keeps the statuses of the in-process engine: 422 with every problem, 400 for an unknown model', async () => {
    const invalid = await authed(pooled.url, '/v1/systemone', { body: { ...REQUEST, questions: { q: { type: 'noul', instructions: 5 } } } });
    expect(invalid.status).toBe(422);
    const local = await (await sharedEngine()).evaluate({ ...REQUEST, questions: { q: { type: 'noul', instructions: 5 } } }).catch((e: { detail: unknown }) => e.detail);
    expect(invalid.json.detail).toEqual(local);
    const unknown = await authed(pooled.url, '/v1/systemone', { body: { ...REQUEST, model: 'no-such-model' } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.code).toBe('unknown_model');
  });

  it('closes its workers with the server', async () => {
    const handle = await serve({ host: '127.0.0.1', port: 0, log: false, keys: ['k'], workers: 2, engineConfig: { workerExecArgv } as EngineConfig });
    await handle.close();
    await expect(handle.engine.evaluate(REQUEST)).rejects.toThrow(/closed/i);
  });
});

describe('workers option', () => {
  it('defaults to one in-process engine for serve(); the command picks by backend', () => {
    expect(resolveOptions({}).workers).toBe(1);
    // With onnxruntime-node installed (this repository's .npmrc installs it): one engine whose
    // intra-op threads use every core; on the wasm engine: one engine per core.
    const parsed = parseServeArgs([], {});
    const native = (() => {
      try {
        createRequire(import.meta.url).resolve('onnxruntime-node');
        return true;
      } catch {
        return false;
      }
    })();
    expect(!parsed.help && parsed.options.workers).toBe(native ? 1 : os.availableParallelism());
    expect(!parsed.help && parsed.options.engineConfig?.threads).toBe(native ? os.availableParallelism() : undefined);
    const wasm = parseServeArgs(['--backend', 'wasm'], {});
    expect(!wasm.help && wasm.options.workers).toBe(os.availableParallelism());
    expect(!wasm.help && wasm.options.engineConfig?.threads).toBeUndefined();
    const threads = parseServeArgs(['--threads', '1'], {});
    expect(!threads.help && threads.options.workers).toBe(native ? 1 : os.availableParallelism());
    expect(!threads.help && threads.options.engineConfig?.threads).toBe(1);
    const one = parseServeArgs(['--workers', '1'], {});
    expect(!one.help && one.options.workers).toBe(1);
    const env = parseServeArgs([], { EVALMODEL_WORKERS: '3' });
    expect(!env.help && env.options.workers).toBe(3);
  });

  it('runs at least as many evaluations at once as there are workers, unless told otherwise', () => {
    expect(resolveOptions({ workers: 4 }).concurrency).toBe(4);
    expect(resolveOptions({ workers: 4, concurrency: 1 }).concurrency).toBe(1);
    expect(resolveOptions({ workers: 1 }).concurrency).toBe(2);
  });

  it('rejects a worker count below one or not an integer', () => {
    expect(() => parseServeArgs(['--workers', '0'], {})).toThrow(/--workers/);
    expect(() => parseServeArgs(['--workers', '1.5'], {})).toThrow(/--workers/);
    expect(() => parseServeArgs(['--workers', 'x'], {})).toThrow(/--workers/);
    expect(() => resolveOptions({ workers: 0 })).toThrow(/workers/);
  });
});
