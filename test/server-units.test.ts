/**
 * Unit tests of the server's parts that need no engine: keys, buckets, the queue, options and
 * the `serve` argument parser.
 */
import { describe, expect, it } from 'vitest';
import { parseServeArgs } from '../src/cli/serve.js';
import {
  KeyRing,
  MemoryRateLimitStore,
  QueueFullError,
  RateLimiter,
  WorkQueue,
  applyBucket,
  isLoopbackHost,
  keysFromEnv,
  newRequestId,
  parseKeysFile,
  type BucketOp,
  type RateLimitStore,
} from '../src/server/index.js';
import { resolveOptions } from '../src/server/options.js';
import { exceedsNesting } from '../src/server/body.js';

describe('keys', () => {
  it('parses EVALMODEL_API_KEYS', () => {
    expect(keysFromEnv(undefined)).toEqual([]);
    expect(keysFromEnv(' a, b ,,c ')).toEqual([{ key: 'a' }, { key: 'b' }, { key: 'c' }]);
  });

  it('parses keys files with scopes, comments and blank lines', () => {
    expect(parseKeysFile('# c\n\nplain\r\nscoped: evalmodel-latest , evalmodel-1.13.0\nall:*\n  spaced  \n')).toEqual([
      { key: 'plain' },
      { key: 'scoped', models: ['evalmodel-latest', 'evalmodel-1.13.0'] },
      { key: 'all', models: null },
      { key: 'spaced' },
    ]);
    expect(() => parseKeysFile(':m1')).toThrow(/line 1: empty key/);
    expect(() => parseKeysFile('ok\nk:')).toThrow(/line 2/);
    expect(() => parseKeysFile('a b')).toThrow(/blanks/);
  });

  it('authenticates bearer keys and says why it refuses', () => {
    const ring = new KeyRing(['alpha', { key: 'beta', models: ['m1'] }, { key: 'beta', models: ['m2'] }]);
    expect(ring.size).toBe(2);
    expect(ring.scoped).toBe(true);
    expect(ring.authenticate(undefined)).toEqual({ ok: false, reason: 'missing_api_key' });
    expect(ring.authenticate('  ')).toEqual({ ok: false, reason: 'missing_api_key' });
    expect(ring.authenticate('alpha')).toEqual({ ok: false, reason: 'malformed_authorization' });
    expect(ring.authenticate('Token alpha')).toEqual({ ok: false, reason: 'malformed_authorization' });
    expect(ring.authenticate('Bearer alph')).toEqual({ ok: false, reason: 'invalid_api_key' });
    const a = ring.authenticate('Bearer alpha');
    expect(a.ok && a.key.models).toBe(null);
    const b = ring.authenticate('bearer  beta ');
    expect(b.ok && b.key.models).toEqual(['m1', 'm2']);
    // The id is a digest prefix, not the key.
    expect(a.ok && a.key.id).toMatch(/^[0-9a-f]{16}$/);
    expect(JSON.stringify(ring)).not.toContain('alpha');
  });

  it('rejects empty keys', () => {
    expect(() => new KeyRing([''])).toThrow(/non-empty/);
  });

  it('tells loopback hosts', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', 'LOCALHOST']) expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.2', 'example.com', '']) expect(isLoopbackHost(h), h).toBe(false);
  });

  it('makes request ids req_<32 hex>', () => {
    const ids = new Set(Array.from({ length: 100 }, newRequestId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{32}$/);
  });
});

describe('nesting scan', () => {
  it('counts brackets outside strings only, escapes included', () => {
    expect(exceedsNesting('[[[]]]', 3)).toBe(false);
    expect(exceedsNesting('[[[[]]]]', 3)).toBe(true);
    expect(exceedsNesting('{"a":{"b":{"c":1}}}', 3)).toBe(false);
    expect(exceedsNesting('{"a":{"b":{"c":{}}}}', 3)).toBe(true);
    expect(exceedsNesting(`["${'['.repeat(50)}"]`, 3)).toBe(false);
    expect(exceedsNesting(String.raw`["\\",[[[]]]]`, 3)).toBe(true);
    expect(exceedsNesting(`["\\"[[[",1]`, 3)).toBe(false);
    expect(exceedsNesting('[]'.repeat(10_000), 1)).toBe(false);
  });
});

describe('token buckets', () => {
  const spec = { capacity: 10, refillPerSecond: 5 };
  const take: BucketOp = { cost: 1, require: 1, floor: 0 };

  it('starts full, refills over time, caps at capacity', () => {
    let { state, result } = applyBucket(undefined, spec, take, 0);
    expect(result).toEqual({ admitted: true, level: 9, retryAfterMs: 0 });
    ({ state, result } = applyBucket(state, spec, { ...take, cost: 9 }, 0));
    expect(result.level).toBe(0);
    ({ state, result } = applyBucket(state, spec, take, 100));
    expect(result.admitted).toBe(false);
    expect(result.retryAfterMs).toBe(100); // 0.5 more at 5/s
    ({ result } = applyBucket(state, spec, take, 10_000_000));
    expect(result.level).toBe(9);
  });

  it('lets a charge overdraw down to the floor, then refuses until repaid', () => {
    const charge: BucketOp = { cost: 50, require: Number.NEGATIVE_INFINITY, floor: -10 };
    let { state, result } = applyBucket(undefined, spec, charge, 0);
    expect(result.level).toBe(-10);
    ({ state, result } = applyBucket(state, spec, { cost: 0, require: 1, floor: -10 }, 0));
    expect(result.admitted).toBe(false);
    expect(result.retryAfterMs).toBe(2_200);
    ({ result } = applyBucket(state, spec, { cost: 0, require: 1, floor: -10 }, 2_200));
    expect(result.admitted).toBe(true);
  });

  it('limits requests and tokens per key with a clock', async () => {
    let now = 0;
    const limiter = new RateLimiter({ requestsPerMinute: 2, inputTokensPerSecond: 100 }, new MemoryRateLimitStore(), () => now);
    expect(await limiter.admit('a')).toEqual({ admitted: true });
    expect(await limiter.admit('a')).toEqual({ admitted: true });
    expect(await limiter.admit('a')).toEqual({ admitted: false, limit: 'requests_per_minute', retryAfterMs: 30_000 });
    expect(await limiter.admit('b')).toEqual({ admitted: true });
    await limiter.charge('b', 250);
    expect(await limiter.admit('b')).toEqual({ admitted: false, limit: 'input_tokens_per_second', retryAfterMs: 1_010 });
    now = 1_010;
    expect((await limiter.admit('b')).admitted).toBe(true);
    now = 30_000;
    expect((await limiter.admit('a')).admitted).toBe(true);
  });

  it('turns a limit off with 0 or Infinity', async () => {
    const limiter = new RateLimiter({ requestsPerMinute: 0, inputTokensPerSecond: Number.POSITIVE_INFINITY });
    for (let i = 0; i < 5_000; i++) expect((await limiter.admit('k')).admitted).toBe(true);
    await limiter.charge('k', 1e12);
    expect((await limiter.admit('k')).admitted).toBe(true);
  });

  it('works over an asynchronous store', async () => {
    const memory = new MemoryRateLimitStore();
    const calls: string[] = [];
    const store: RateLimitStore = {
      consume: async (key, spec, op, now) => {
        calls.push(key);
        await new Promise((r) => setTimeout(r, 1));
        return memory.consume(key, spec, op, now);
      },
    };
    const limiter = new RateLimiter({ requestsPerMinute: 1, inputTokensPerSecond: 10 }, store);
    expect((await limiter.admit('x')).admitted).toBe(true);
    expect(await limiter.admit('x')).toMatchObject({ admitted: false, limit: 'requests_per_minute' });
    expect(calls).toEqual(['x:tok', 'x:req', 'x:tok', 'x:req']);
  });

  it('forgets refilled buckets when the store grows past its bound', () => {
    const store = new MemoryRateLimitStore(100);
    const spec1 = { capacity: 1, refillPerSecond: 1 };
    for (let i = 0; i < 150; i++) store.consume(`k${i}`, spec1, take, 0);
    expect(store.size).toBeLessThanOrEqual(101);
    store.sweep(10_000);
    expect(store.size).toBe(0);
  });
});

describe('work queue', () => {
  const deferred = () => {
    let resolve!: (v: string) => void;
    const promise = new Promise<string>((r) => (resolve = r));
    return { promise, resolve };
  };

  it('runs at most `concurrency` jobs, queues up to the bound, refuses beyond it', async () => {
    const q = new WorkQueue({ concurrency: 2, maxQueued: 1 });
    const jobs = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = jobs.map((d, i) =>
      q.run(() => {
        started.push(i);
        return d.promise;
      }),
    );
    await expect(q.run(async () => 'x')).rejects.toBeInstanceOf(QueueFullError);
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1]);
    expect([q.active, q.queued]).toEqual([2, 1]);
    jobs[0]!.resolve('a');
    expect(await runs[0]).toBe('a');
    for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
    expect(started).toEqual([0, 1, 2]);
    jobs[1]!.resolve('b');
    jobs[2]!.resolve('c');
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'c']);
    await q.idle();
    expect([q.active, q.queued]).toEqual([0, 0]);
  });

  it('never starts a job inside the caller and keeps FIFO order', async () => {
    const q = new WorkQueue({ concurrency: 1, maxQueued: 10 });
    const order: number[] = [];
    let sync = true;
    const runs = [0, 1, 2, 3].map((i) =>
      q.run(async () => {
        expect(sync).toBe(false);
        order.push(i);
      }),
    );
    sync = false;
    await Promise.all(runs);
    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('drops a waiting job when its signal aborts, and passes errors through', async () => {
    const q = new WorkQueue({ concurrency: 1, maxQueued: 5 });
    const block = deferred();
    const first = q.run(() => block.promise);
    await new Promise((r) => setImmediate(r));
    const controller = new AbortController();
    let ran = false;
    const second = q.run(async () => {
      ran = true;
    }, controller.signal);
    controller.abort(new Error('gone'));
    await expect(second).rejects.toThrow('gone');
    expect(q.queued).toBe(0);
    block.resolve('done');
    await first;
    await q.idle();
    expect(ran).toBe(false);
    await expect(q.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(
      q.run(() => {
        throw new Error('sync boom');
      }),
    ).rejects.toThrow('sync boom');
  });

  it('estimates a wait', () => {
    const q = new WorkQueue({ concurrency: 2, maxQueued: 0 });
    expect(q.estimateWaitMs()).toBeGreaterThan(0);
    expect(() => new WorkQueue({ concurrency: 0, maxQueued: 0 })).toThrow(RangeError);
  });
});

describe('options', () => {
  it('applies defaults', () => {
    const o = resolveOptions({});
    expect(o).toMatchObject({
      host: '127.0.0.1',
      port: 8000,
      concurrency: 2,
      maxQueued: 16,
      maxBodyBytes: 1_048_576,
      rateLimits: { requestsPerMinute: 1200, inputTokensPerSecond: 250_000 },
      requestIdHeaders: ['x-service-request-id', 'x-typesafe-request-id'],
    });
  });

  it('names a bad option', () => {
    expect(() => resolveOptions({ port: -1 })).toThrow(/port/);
    expect(() => resolveOptions({ concurrency: 0 })).toThrow(/concurrency/);
    expect(() => resolveOptions({ rateLimits: { requestsPerMinute: 0.5 } })).toThrow(/requestsPerMinute/);
    expect(() => resolveOptions({ requestIdHeaders: ['bad header'] })).toThrow(/requestIdHeaders/);
  });
});

describe('serve arguments', () => {
  it('reads flags, with the environment as fallback', () => {
    const parsed = parseServeArgs(['--host', '0.0.0.0', '--port=9000', '--open', '--rpm', '60', '--quiet'], { EVALMODEL_TPS: '1000', EVALMODEL_CONCURRENCY: '3' });
    expect(parsed.help).toBe(false);
    if (parsed.help) return;
    expect(parsed.options).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
      allowOpen: true,
      rateLimits: { requestsPerMinute: 60, inputTokensPerSecond: 1000 },
      concurrency: 3,
    });
    expect(typeof parsed.options.log).toBe('function');
  });

  it('keeps EVALMODEL_API_KEYS next to a keys file', () => {
    const parsed = parseServeArgs(['--keys-file', '/tmp/k'], { EVALMODEL_API_KEYS: 'a,b' });
    expect(!parsed.help && parsed.options).toMatchObject({ keysFile: '/tmp/k', keys: ['a', 'b'] });
  });

  it('rejects unknown flags and bad numbers, and answers --help', () => {
    expect(parseServeArgs(['--help'])).toEqual({ help: true });
    expect(() => parseServeArgs(['--nope', '1'], {})).toThrow(/Unknown option '--nope'/);
    expect(() => parseServeArgs(['--port', 'x'], {})).toThrow(/--port expects a number/);
    expect(() => parseServeArgs(['--port'], {})).toThrow(/needs a value/);
    expect(() => parseServeArgs(['--backend', 'gpu'], {})).toThrow(/--backend/);
    expect(() => parseServeArgs(['--threads', '0'], {})).toThrow(/--threads expects an integer/);
  });

  it('takes the encoder backend and its intra-op threads from flags or the environment', () => {
    const parsed = parseServeArgs(['--backend', 'onnxruntime-node'], { EVALMODEL_THREADS: '2' });
    expect(!parsed.help && parsed.options.engineConfig).toEqual({ backend: 'onnxruntime-node', threads: 2 });
    const plain = parseServeArgs(['--threads', '1'], {});
    expect(!plain.help && plain.options.engineConfig).toEqual({ threads: 1 });
  });
});
