/**
 * The HTTP server: SPEC.md's interface (`POST /v1/systemone`, `GET /v1/models`, plus
 * `GET /openapi.json`) over an `Engine`, on `node:http`.
 *
 * @example
 * import { serve } from './server/index.js';
 * const server = await serve({ port: 0, keys: ['sk-test'] });
 * console.log(server.url); // http://127.0.0.1:54321
 * await server.close();
 * @module
 */
import type { Server } from 'node:http';
import type { Engine, EngineConfig } from '../engine/contract.js';
import { stderrSink } from './access-log.js';
import { HttpApp } from './app.js';
import { ConnectionTracker, DRAIN_IDLE_MS, DRAIN_QUIET_MS } from './drain.js';
import { KEYS_ENV, KeyRing, isLoopbackHost, keysFromEnv, readKeysFile, type KeySpec } from './keys.js';
import { resolveOptions, type ServeOptions } from './options.js';
import { MemoryRateLimitStore, RateLimiter, type RateLimitStore } from './rate-limit.js';

export type { ServeOptions, ResolvedOptions } from './options.js';
export { DEFAULTS } from './options.js';
export { KeyRing, isLoopbackHost, keysFromEnv, parseKeysFile, readKeysFile, KEYS_ENV, type ApiKey, type KeySpec } from './keys.js';
export {
  MemoryRateLimitStore,
  RateLimiter,
  applyBucket,
  DEFAULT_RATE_LIMITS,
  type BucketOp,
  type BucketResult,
  type BucketSpec,
  type BucketState,
  type RateLimitStore,
  type RateLimits,
} from './rate-limit.js';
export { WorkQueue, QueueFullError } from './queue.js';
export { HttpError, type ErrorBody, type ErrorType } from './http-error.js';
export { openApiDocument } from './openapi.js';
export { stderrSink, silentSink, type AccessRecord, type LogSink } from './access-log.js';
export { newRequestId } from './app.js';

/** A running server. */
export interface ServerHandle {
  /** Base URL, e.g. `http://127.0.0.1:8000`. */
  readonly url: string;
  readonly host: string;
  /** The bound port (the real one when 0 was asked for). */
  readonly port: number;
  /** The engine being served. */
  readonly engine: Engine;
  /** The underlying node:http server. */
  readonly server: Server;
  /** Whether requests are authenticated (false: no key configured, served open). */
  readonly authenticated: boolean;
  /** Requests in flight, evaluations running and waiting, and the estimated work units of those waiting. */
  stats(): { inFlight: number; running: number; queued: number; queuedWork: number };
  /**
   * Graceful shutdown: stops accepting connections, answers new requests on open connections
   * with 503, lets in-flight requests finish (up to `shutdownGraceMs`), then closes every
   * connection and, if `serve` created the engine, the engine. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Resolves once the listener has accepted no connection for DRAIN_QUIET_MS, counted from now
 * at the earliest (the event loop has just become free to accept what waited in the backlog).
 */
async function untilQuiet(connections: ConnectionTracker): Promise<void> {
  const from = performance.now();
  for (;;) {
    const quietFor = performance.now() - Math.max(from, connections.lastAcceptedAt);
    if (quietFor >= DRAIN_QUIET_MS) return;
    await new Promise((resolve) => setTimeout(resolve, DRAIN_QUIET_MS - quietFor));
  }
}

/** Resolves once every connection has closed (the drain's sweep closes the idle ones). */
async function untilNoConnection(connections: ConnectionTracker): Promise<void> {
  while (connections.size > 0) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Collects the configured keys: `keys` and `keysFile`, or else `EVALMODEL_API_KEYS`. */
/**
 * The engine `serve` creates and closes: in this process for one worker, else a pool of
 * worker threads (loaded lazily, so that importing the server loads no model).
 */
async function createOwnEngine(config: EngineConfig | undefined, workers: number): Promise<Engine> {
  if (workers <= 1) return (await import('../engine/engine.js')).createEngine(config);
  return (await import('../engine/pool.js')).createEnginePool({ ...config, workers });
}

function collectKeys(options: ServeOptions): KeySpec[] {
  const specs: KeySpec[] = [];
  for (const k of options.keys ?? []) specs.push(typeof k === 'string' ? { key: k } : k);
  if (options.keysFile !== undefined) specs.push(...readKeysFile(options.keysFile));
  if (options.keys === undefined && options.keysFile === undefined) specs.push(...keysFromEnv((options.env ?? process.env)[KEYS_ENV]));
  return specs;
}

/**
 * Starts the server and resolves once it listens. Loads an engine first unless one is given.
 * Throws when no key is configured and the host is not a loopback address, unless
 * `allowOpen` is set.
 */
export async function serve(options: ServeOptions = {}): Promise<ServerHandle> {
  const resolved = resolveOptions(options);
  const keys = new KeyRing(collectKeys(options));
  if (keys.size === 0 && !isLoopbackHost(resolved.host) && options.allowOpen !== true) {
    throw new Error(
      `No API key configured: refusing to serve ${resolved.host} without authentication. Set ${KEYS_ENV}, pass --keys-file, or run open explicitly (--open / allowOpen: true).`,
    );
  }
  const log = options.log === false ? null : (options.log ?? stderrSink);
  const ownsEngine = options.engine === undefined;
  const engine = options.engine ?? (await createOwnEngine(options.engineConfig, resolved.workers));
  const store: RateLimitStore = options.rateLimitStore ?? new MemoryRateLimitStore();
  const limiter = new RateLimiter(resolved.rateLimits, store);
  const app = new HttpApp({ engine, keys, limiter, options: resolved, log });
  const server = app.server;
  const connections = new ConnectionTracker(server);

  try {
    await new Promise<void>((resolve, reject) => {
      const onError = (error: Error): void => reject(error);
      server.once('error', onError);
      server.listen({ host: resolved.host, port: resolved.port }, () => {
        server.off('error', onError);
        resolve();
      });
    });
  } catch (error) {
    if (ownsEngine) await engine.close();
    throw error;
  }
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : resolved.port;
  const host = resolved.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (log) {
    const line: Record<string, unknown> = { time: new Date().toISOString(), level: 'info', msg: 'listening', url, authenticated: keys.size > 0 };
    if (keys.size === 0) {
      line.level = 'warn';
      line.warning = 'No API key configured: every request is served without authentication.';
    }
    log(JSON.stringify(line));
  }

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      app.startDraining();
      // Every request gets 503 and `connection: close` from now on, on open connections and on
      // new ones: the listener stays open until the work in flight is done, because closing it
      // resets the connections still in its accept backlog (a busy event loop leaves some
      // there), where clients should get a 503 to retry elsewhere. A connection idle for
      // DRAIN_IDLE_MS is closed (see drain.ts: closing one that just answered races its reuse).
      connections.closeIdle(DRAIN_IDLE_MS);
      const sweep = setInterval(() => connections.closeIdle(DRAIN_IDLE_MS), 50);
      let grace: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => {
        grace = setTimeout(resolve, resolved.shutdownGraceMs);
      });
      await Promise.race([app.whenDrained().then(() => untilQuiet(connections)), graceOver]);
      const closed = connections.stopListening();
      await Promise.race([untilNoConnection(connections), graceOver]);
      clearTimeout(grace);
      clearInterval(sweep);
      server.closeAllConnections();
      await closed;
      if (ownsEngine) await engine.close();
      await store.close?.();
      if (log) log(JSON.stringify({ time: new Date().toISOString(), level: 'info', msg: 'closed', url }));
    })();
    return closing;
  };

  return {
    url,
    host,
    port,
    engine,
    server,
    authenticated: keys.size > 0,
    stats: () => ({ inFlight: app.pending, running: app.queue.active + app.lightQueue.active, queued: app.queue.queued + app.lightQueue.queued, queuedWork: app.queue.queuedWork + app.lightQueue.queuedWork }),
    close,
  };
}

/**
 * Closes `handle` gracefully on the first of `signals` (default SIGTERM and SIGINT), then
 * calls `onClosed`; a second signal while draining calls `onForce`. Returns a function that
 * removes the handlers.
 */
export function installSignalHandlers(
  handle: Pick<ServerHandle, 'close'>,
  {
    signals = ['SIGTERM', 'SIGINT'],
    target = process,
    onClosed = () => undefined,
    onForce = () => undefined,
    onError = () => undefined,
  }: {
    signals?: readonly NodeJS.Signals[];
    target?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
    onClosed?: (signal: NodeJS.Signals) => void;
    onForce?: (signal: NodeJS.Signals) => void;
    onError?: (error: unknown) => void;
  } = {},
): () => void {
  let received: NodeJS.Signals | null = null;
  const listener = (signal: NodeJS.Signals): void => {
    if (received !== null) {
      onForce(signal);
      return;
    }
    received = signal;
    handle.close().then(() => onClosed(signal), onError);
  };
  for (const s of signals) target.on(s, listener);
  return () => {
    for (const s of signals) target.off(s, listener);
  };
}
