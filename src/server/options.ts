/**
 * Options of `serve()` and their defaults, checked once at start-up.
 * @module
 */
import type { Engine, EngineConfig } from '../engine/contract.js';
import type { LogSink } from './access-log.js';
import type { KeySpec } from './keys.js';
import type { RateLimitStore, RateLimits } from './rate-limit.js';

/** Options of {@link serve}. Every field is optional. */
export interface ServeOptions {
  /** Address to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port; `0` picks a free one (see `handle.port`). Default 8000. */
  port?: number;
  /** A loaded engine to serve. Default: one created with `engineConfig` and closed with the server. */
  engine?: Engine;
  /** Options of the engine created when `engine` is absent. */
  engineConfig?: EngineConfig;
  /**
   * Engines created when `engine` is absent: 1 runs one engine in this process (one core);
   * more start `createEnginePool` with that many worker threads, one engine and one core
   * each, and leave this thread to HTTP. Default 1. With more workers than `concurrency`,
   * the extra workers only help a request split its state (see docs/performance.md).
   */
  workers?: number;
  /**
   * API keys, as strings or `{key, models}` (scoped). When both `keys` and `keysFile` are
   * absent, keys come from `env.EVALMODEL_API_KEYS` (comma-separated).
   */
  keys?: readonly (string | KeySpec)[];
  /** A keys file: one key a line, optionally `key:model1,model2`; `#` starts a comment. */
  keysFile?: string;
  /** Environment to read `EVALMODEL_API_KEYS` from. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /**
   * Serve without authentication when no key is configured, even on a non-loopback host.
   * Without keys, a loopback host is served open anyway (with a warning in the log).
   */
  allowOpen?: boolean;
  /**
   * Per-key limits; 0 or Infinity disables one. Default 1,200 requests/minute, 250,000 input
   * tokens/second and 2,000 work units/second (about one core).
   */
  rateLimits?: Partial<RateLimits>;
  /** Where bucket states live. Default: in this process. */
  rateLimitStore?: RateLimitStore;
  /** Evaluations running at once. Default 2, or `workers` when that is more. */
  concurrency?: number;
  /** Evaluations waiting beyond `concurrency` before new ones get 529. Default 16. */
  maxQueued?: number;
  /**
   * Estimated work (work units, state-token equivalents) of the evaluations waiting in a queue
   * beyond which new ones get 529 (the first one waiting is always taken). Default 20,000 per
   * `concurrency` slot: about 10 s of the 2,000 units/s one idle core runs, the reference
   * client's timeout. 0 turns it off.
   */
  maxQueuedWork?: number;
  /**
   * Bodies of at most this many bytes go to their own queue (same `concurrency` and
   * `maxQueued`), so that small requests never wait behind long ones. Default 8,192.
   */
  lightBodyBytes?: number;
  /**
   * Longest an evaluation may compute, from its start, in ms: past it, the evaluation is
   * aborted at its next window boundary and answered 504 `compute_deadline`. Default 60,000;
   * 0 turns it off.
   */
  computeTimeoutMs?: number;
  /**
   * Longest a response may take to be written to a client that does not read it, in ms;
   * past it, the connection is closed. Default 30,000.
   */
  writeTimeoutMs?: number;
  /** Largest request body, in bytes. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Time allowed to receive a request body after its headers, in ms. Default 10,000. */
  bodyTimeoutMs?: number;
  /** Time allowed to receive a request's headers, in ms. Default 10,000. */
  headersTimeoutMs?: number;
  /** Idle time before a keep-alive connection is closed, in ms. Default 5,000. */
  keepAliveTimeoutMs?: number;
  /** Longest graceful shutdown waits for in-flight requests before cutting connections, in ms. Default 30,000. */
  shutdownGraceMs?: number;
  /** Response headers carrying the request id. Default `x-service-request-id` and `x-typesafe-request-id`. */
  requestIdHeaders?: readonly string[];
  /** Access-log sink (one JSON line per call), or `false` for none. Default: stderr. */
  log?: LogSink | false;
}

/** Options with every default applied. */
export interface ResolvedOptions {
  host: string;
  port: number;
  rateLimits: RateLimits;
  concurrency: number;
  maxQueued: number;
  maxQueuedWork: number;
  lightBodyBytes: number;
  computeTimeoutMs: number;
  writeTimeoutMs: number;
  maxBodyBytes: number;
  bodyTimeoutMs: number;
  headersTimeoutMs: number;
  keepAliveTimeoutMs: number;
  shutdownGraceMs: number;
  requestIdHeaders: string[];
  workers: number;
}

export const DEFAULTS = {
  host: '127.0.0.1',
  port: 8000,
  concurrency: 2,
  maxQueued: 16,
  /** Per `concurrency` slot. */
  queuedWorkPerSlot: 20_000,
  lightBodyBytes: 8_192,
  computeTimeoutMs: 60_000,
  writeTimeoutMs: 30_000,
  maxBodyBytes: 1024 * 1024,
  bodyTimeoutMs: 10_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  shutdownGraceMs: 30_000,
  requestIdHeaders: ['x-service-request-id', 'x-typesafe-request-id'],
  workers: 1,
} as const;

function integer(name: string, value: number | undefined, fallback: number, min: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${String(v)}`);
  return v;
}

function limit(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!(v === 0 || v === Number.POSITIVE_INFINITY || (Number.isFinite(v) && v >= 1))) {
    throw new RangeError(`${name} must be 0 (off), Infinity (off) or a number >= 1, got ${String(v)}`);
  }
  return v;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/** Applies defaults and checks ranges; throws RangeError naming the bad option. */
export function resolveOptions(options: ServeOptions): ResolvedOptions {
  const workers = integer('workers', options.workers, DEFAULTS.workers, 1);
  // Fewer evaluations at once than engines would leave workers idle under load.
  const concurrency = integer('concurrency', options.concurrency, Math.max(DEFAULTS.concurrency, workers), 1);
  const requestIdHeaders = [...(options.requestIdHeaders ?? DEFAULTS.requestIdHeaders)].map((h) => h.toLowerCase());
  for (const h of requestIdHeaders) if (!HEADER_NAME.test(h)) throw new RangeError(`requestIdHeaders: '${h}' is not a header name`);
  return {
    host: options.host ?? DEFAULTS.host,
    port: integer('port', options.port, DEFAULTS.port, 0),
    rateLimits: {
      requestsPerMinute: limit('rateLimits.requestsPerMinute', options.rateLimits?.requestsPerMinute, 1200),
      inputTokensPerSecond: limit('rateLimits.inputTokensPerSecond', options.rateLimits?.inputTokensPerSecond, 250_000),
      workUnitsPerSecond: limit('rateLimits.workUnitsPerSecond', options.rateLimits?.workUnitsPerSecond, 2_000),
    },
    concurrency,
    maxQueued: integer('maxQueued', options.maxQueued, DEFAULTS.maxQueued, 0),
    maxQueuedWork: integer('maxQueuedWork', options.maxQueuedWork, DEFAULTS.queuedWorkPerSlot * concurrency, 0),
    lightBodyBytes: integer('lightBodyBytes', options.lightBodyBytes, DEFAULTS.lightBodyBytes, 0),
    computeTimeoutMs: integer('computeTimeoutMs', options.computeTimeoutMs, DEFAULTS.computeTimeoutMs, 0),
    writeTimeoutMs: integer('writeTimeoutMs', options.writeTimeoutMs, DEFAULTS.writeTimeoutMs, 1),
    maxBodyBytes: integer('maxBodyBytes', options.maxBodyBytes, DEFAULTS.maxBodyBytes, 1),
    bodyTimeoutMs: integer('bodyTimeoutMs', options.bodyTimeoutMs, DEFAULTS.bodyTimeoutMs, 1),
    headersTimeoutMs: integer('headersTimeoutMs', options.headersTimeoutMs, DEFAULTS.headersTimeoutMs, 1),
    keepAliveTimeoutMs: integer('keepAliveTimeoutMs', options.keepAliveTimeoutMs, DEFAULTS.keepAliveTimeoutMs, 1),
    shutdownGraceMs: integer('shutdownGraceMs', options.shutdownGraceMs, DEFAULTS.shutdownGraceMs, 0),
    requestIdHeaders,
    workers,
  };
}
