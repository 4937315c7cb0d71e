/**
 * A pool of engines in worker threads, behind the same `Engine` contract. tfjs' wasm backend
 * runs on one thread, so one engine uses one core; the pool runs one engine per worker and
 * keeps the caller's event loop free (it only routes messages).
 *
 * Each worker loads its own engine; the pool reads the encoder's weight files once and shares
 * them read-only (SharedArrayBuffer). Requests are routed by their state: a state seen recently
 * goes to the worker that took it, so its cached encoding is found again, unless that worker is
 * busier than another by more than one request; a new state goes to the worker used last when
 * it is idle (its weights are still in the CPU's caches), else by the state's hash. Answers are
 * the single engine's: every worker runs the same code on the same weights, and the encoder's
 * results do not depend on batching.
 *
 * One request can use more than one core: a worker whose encoder pass has several windows
 * (a long state) hands some of them to an idle peer over a direct MessagePort and encodes the
 * rest meanwhile (see peers.ts and encoder/split.ts), or, for a lone window, half its rows
 * (encoder/rows.ts, rows-channel.ts); under load no worker is idle and each
 * request stays on its own worker.
 * @module
 */
import os from 'node:os';
import { MessageChannel, Worker } from 'node:worker_threads';
import { LRUCache } from 'lru-cache';
import { flattenWhitespace } from '../canonical/index.js';
import { EngineClosedError, RequestValidationError, UnknownModelError } from '../errors.js';
import { isTransformersSpec, type ModelRegistry } from '../registry/index.js';
import { loadTokenCounter } from '../transformers/model.js';
import { registryFor } from './registry-config.js';
import { loadVocabulary, type Tokenizer } from '../tokenizer/index.js';
import { engineTokenizer } from './tokens.js';
import type { ModelMetadataList, SystemOneResponse, ValidationError } from '../types.js';
import { validateRequest } from '../validation/index.js';
import { splitEvaluateArguments } from './arguments.js';
import { stopConcurrentMarking } from './gc-tuning.js';
import { hash, ROUTES, routingKey } from './routing.js';
import { shareWeights } from './shared-weights.js';
import type { Engine, EngineConfig, EngineStats, EvaluateOptions } from './contract.js';
import type { PeerInit } from './peers.js';
import type { FromWorker, SerializedError, ToWorker, WorkerInit } from './worker.js';

/** Options of `createEnginePool`: an engine's options, plus the pool's own. */
export interface EnginePoolConfig extends EngineConfig {
  /** Worker threads, each with its own engine. Default: the machine's available parallelism. */
  workers?: number;
  /**
   * Extra `execArgv` for the workers (e.g. a loader that runs TypeScript sources in tests).
   * @internal
   */
  workerExecArgv?: string[];
  /**
   * Let workers cut one window's rows between them (default true); false keeps the window
   * split only (bench/speed/split-ab.ts compares the two).
   * @internal
   */
  rowSplit?: boolean;
  /**
   * Keep V8's concurrent marking (background GC threads) on. By default the pool turns it off
   * for the process, because its threads take cores the workers compute on (gc-tuning.ts:
   * jevbench-sample p50 53-56 ms with it, 44-48 ms without). A process started with its own
   * `--concurrent-marking` or `--single-threaded-gc` flag is left as it is either way.
   */
  concurrentMarking?: boolean;
}

interface Pending {
  onWork: ((units: number) => void) | undefined;
  resolve(value: SystemOneResponse): void;
  reject(error: unknown): void;
  worker: PoolWorker;
  cleanup(): void;
}

interface PoolWorker {
  thread: Worker;
  inFlight: number;
  stats: EngineStats | null;
  alive: boolean;
}

/**
 * Sends a request's message to a worker; false (and `reject` called) when it cannot be sent. A
 * body that is not structured-cloneable (functions, symbols...) is never a valid request, so it
 * is rejected with the validation errors when there are any.
 */
function post(worker: PoolWorker, message: ToWorker, request: unknown, reject: (error: unknown) => void): boolean {
  try {
    worker.thread.postMessage(message);
    return true;
  } catch {
    const checked = validateRequest(request);
    reject(checked.ok ? new Error('The request could not be sent to an engine worker') : new RequestValidationError(checked.errors));
    return false;
  }
}

function revive(error: SerializedError): Error {
  switch (error.name) {
    case 'RequestValidationError':
      return new RequestValidationError(error.detail as ValidationError[]);
    case 'UnknownModelError':
      return new UnknownModelError(error.model ?? '', error.available ?? []);
    case 'EngineClosedError':
      return new EngineClosedError();
    default: {
      const revived = error.name === 'AbortError' ? new DOMException(error.message, 'AbortError') : new Error(error.message);
      if (!(revived instanceof DOMException)) revived.name = error.name;
      return revived;
    }
  }
}


class EnginePool implements Engine {
  private closed = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Estimates asked of a worker, by id. */
  private readonly estimates = new Map<number, { worker: PoolWorker; resolve(units: number): void; reject(error: unknown): void }>();
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Which worker took each recently routed state (by its routing hash). */
  private readonly routes = new LRUCache<number, PoolWorker>({ max: ROUTES });
  private lastUsed: PoolWorker | null = null;

  constructor(
    private readonly workers: PoolWorker[],
    private readonly registry: ModelRegistry,
    private readonly tokenizer: Tokenizer,
    private readonly defaultModel: string,
    /** Token counters of NLI models, by versioned id (the default model's, when it is one). */
    private readonly nliCounters: ReadonlyMap<string, (text: string) => number>,
  ) {
    for (const w of workers) this.listen(w);
  }

  private listen(w: PoolWorker): void {
    w.thread.on('message', (message: FromWorker) => {
      if (message.type === 'work') this.pending.get(message.id)?.onWork?.(message.units);
      if (message.type === 'estimated') {
        const e = this.estimates.get(message.id);
        this.estimates.delete(message.id);
        if (message.ok) e?.resolve(message.units);
        else e?.reject(revive(message.error));
        return;
      }
      if (message.type !== 'result') return;
      const p = this.pending.get(message.id);
      w.stats = message.stats;
      if (!p) return;
      this.pending.delete(message.id);
      p.cleanup();
      if (message.ok) p.resolve(message.value as SystemOneResponse);
      else p.reject(revive(message.error));
    });
    const fail = (error: unknown) => {
      if (!w.alive) return;
      w.alive = false;
      for (const [id, p] of this.pending) {
        if (p.worker !== w) continue;
        this.pending.delete(id);
        p.cleanup();
        p.reject(error instanceof Error ? error : new Error(`engine worker exited: ${String(error)}`));
      }
      for (const [id, e] of this.estimates) {
        if (e.worker !== w) continue;
        this.estimates.delete(id);
        e.reject(error instanceof Error ? error : new Error(`engine worker exited: ${String(error)}`));
      }
    };
    w.thread.on('error', fail);
    w.thread.on('exit', (code) => fail(new Error(`engine worker exited with code ${code}`)));
  }

  /**
   * A state routed recently goes back to the worker that took it (its encoding is cached
   * there), unless that worker is busier than the least busy one by more than a request. A new
   * state goes to the worker used last when that worker is idle: each worker holds its own copy
   * of the weights, and one copy stays in the CPU's caches between requests where two
   * alternating copies do not (measured: new states and new questions one at a time through 2
   * workers, p50 249 ms routed by state hash, 143 ms kept on one worker; docs/performance.md).
   * Under load, new states spread by their hash as before (filling the least busy worker
   * instead measured 1.53x one engine's throughput against 1.74x).
   */
  private pick(request: unknown): PoolWorker | undefined {
    const alive = this.workers.filter((w) => w.alive);
    if (alive.length === 0) return undefined;
    const least = alive.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
    const key = hash(routingKey(request));
    const known = this.routes.get(key);
    const last = this.lastUsed;
    const hashed = alive[key % alive.length]!;
    const preferred = known?.alive ? known : last?.alive && last.inFlight === 0 ? last : hashed;
    const chosen = preferred.inFlight <= least.inFlight + 1 ? preferred : least;
    this.routes.set(key, chosen);
    this.lastUsed = chosen;
    return chosen;
  }

  evaluate(...args: unknown[]): Promise<SystemOneResponse> {
    if (this.closed) return Promise.reject(new EngineClosedError());
    const { request, options } = splitEvaluateArguments(args, this.defaultModel);
    const run = this.dispatch(request, options);
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run)).catch(() => undefined);
    return run;
  }

  private dispatch(request: unknown, options: EvaluateOptions): Promise<SystemOneResponse> {
    const { signal } = options;
    if (signal?.aborted) {
      return Promise.reject(signal.reason instanceof Error ? signal.reason : new DOMException('The evaluation was aborted', 'AbortError'));
    }
    const worker = this.pick(request);
    if (!worker) return Promise.reject(new Error('Every engine worker of the pool has exited'));
    const id = this.nextId++;
    return new Promise<SystemOneResponse>((resolve, reject) => {
      // The worker stops at its next window boundary and answers then: until it does, the job
      // stays pending (and counted by the worker's inFlight and by any queue awaiting it), so
      // that a backlog bound counts the work really running, not the clients still waiting.
      const onAbort = () => {
        if (this.pending.has(id)) worker.thread.postMessage({ type: 'abort', id } satisfies ToWorker);
      };
      const cleanup = () => {
        worker.inFlight--;
        signal?.removeEventListener('abort', onAbort);
      };
      if (!post(worker, { type: 'evaluate', id, request }, request, reject)) return;
      worker.inFlight++;
      this.pending.set(id, { onWork: options.onWork, resolve, reject, worker, cleanup });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * Asked of the worker that the evaluation will go to (the state's route, see `pick`), which
   * keeps the token ids for it; this thread stays free of tokenizing.
   */
  estimateWork(request: unknown): Promise<number> {
    if (this.closed) return Promise.reject(new EngineClosedError());
    const worker = this.pick(request);
    if (!worker) return Promise.reject(new Error('Every engine worker of the pool has exited'));
    const id = this.nextId++;
    return new Promise<number>((resolve, reject) => {
      if (!post(worker, { type: 'estimate', id, request }, request, reject)) return;
      this.estimates.set(id, { worker, resolve, reject });
    });
  }

  listModels(): ModelMetadataList {
    return this.registry.list();
  }

  resolveModel(name: string): string {
    return this.registry.resolve(name);
  }

  countTokens(text: string, model: string = this.defaultModel): number {
    const spec = this.registry.spec(model);
    if (!isTransformersSpec(spec)) return this.tokenizer.encode(flattenWhitespace(text)).length;
    const count = this.nliCounters.get(spec.id);
    if (!count) throw new Error(`The pool counts tokens of '${spec.id}' only when it is the default model`);
    return count(flattenWhitespace(text));
  }

  /** Counters summed over the workers, as of each worker's last answer. */
  stats(): EngineStats {
    const all = this.workers.map((w) => w.stats).filter((s): s is EngineStats => s !== null);
    const sum = (f: (s: EngineStats) => number) => all.reduce((n, s) => n + f(s), 0);
    return {
      backend: all[0]?.backend ?? 'wasm',
      tfjsBackend: all[0]?.tfjsBackend ?? 'wasm',
      backends: all[0]?.backends ?? [],
      reader: all.find((s) => s.reader)?.reader ?? null,
      heads: all.find((s) => s.heads)?.heads ?? null,
      matmul: all[0]?.matmul ?? 'tfjs',
      stateEncodes: sum((s) => s.stateEncodes),
      questionEncodes: sum((s) => s.questionEncodes),
      exact: { enabled: all[0]?.exact.enabled ?? true, answered: sum((s) => s.exact.answered), abstained: sum((s) => s.exact.abstained) },
      encodedTokens: sum((s) => s.encodedTokens),
      cache: {
        hits: sum((s) => s.cache.hits),
        misses: sum((s) => s.cache.misses),
        entries: sum((s) => s.cache.entries),
        bytes: sum((s) => s.cache.bytes),
        budgetBytes: sum((s) => s.cache.budgetBytes),
      },
    };
  }

  /** Lets running evaluations finish, closes every worker's engine and ends the threads. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.inFlight]);
    await Promise.all(
      this.workers.map(async (w) => {
        if (!w.alive) return;
        const closed = new Promise<void>((done) => {
          w.thread.on('message', (m: FromWorker) => m.type === 'closed' && done());
          w.thread.once('exit', () => done());
        });
        w.thread.postMessage({ type: 'close' } satisfies ToWorker);
        await closed;
        w.alive = false;
        await w.thread.terminate();
      }),
    );
  }
}

function startWorker(init: WorkerInit, execArgv: string[] | undefined): Promise<PoolWorker> {
  const script = new URL(import.meta.url.endsWith('.ts') ? './worker.ts' : './worker.js', import.meta.url);
  const transferList = init.peers?.ports.map((p) => p.port) ?? [];
  const thread = new Worker(script, { workerData: init, transferList, ...(execArgv ? { execArgv } : {}) });
  return new Promise((resolve, reject) => {
    const onMessage = (message: FromWorker) => {
      if (message.type === 'ready') {
        thread.off('message', onMessage);
        thread.off('error', reject);
        resolve({ thread, inFlight: 0, stats: message.stats, alive: true });
      } else if (message.type === 'failed') {
        void thread.terminate();
        reject(revive(message.error));
      }
    };
    thread.on('message', onMessage);
    thread.once('error', reject);
  });
}

/**
 * A port between every two workers and one shared busy counter per worker, so that an idle
 * worker can encode some of a busy one's windows (see peers.ts); null for a single worker.
 */
function connectWorkers(count: number, rows: boolean): PeerInit[] | null {
  if (count < 2) return null;
  const busy = new SharedArrayBuffer(4 * count);
  const peers: PeerInit[] = Array.from({ length: count }, (_, index) => ({ index, busy, ports: [], rows }));
  for (let a = 0; a < count; a++) {
    for (let b = a + 1; b < count; b++) {
      const { port1, port2 } = new MessageChannel();
      peers[a]!.ports.push({ index: b, port: port1 });
      peers[b]!.ports.push({ index: a, port: port2 });
    }
  }
  return peers;
}

/**
 * Starts `workers` engines in worker threads and returns them as one `Engine`.
 * @example
 * const engine = await createEnginePool({ workers: 2 });
 * const res = await engine.evaluate('The parcel arrived broken.', { q: { type: 'noul', instructions: 'Is the customer unhappy?' } });
 * await engine.close();
 */
export async function createEnginePool(config: EnginePoolConfig = {}): Promise<Engine> {
  const { workers = os.availableParallelism(), workerExecArgv, rowSplit = true, concurrentMarking = false, ...engineConfig } = config;
  const count = Math.max(1, Math.floor(workers));
  // Before the workers start, so that their heaps are set up without it too.
  if (!concurrentMarking && count > 1) stopConcurrentMarking();
  const registry = registryFor(engineConfig);
  const defaultModel = engineConfig.defaultModel ?? 'evalmodel-latest';
  const defaultSpec = registry.spec(defaultModel);
  const nliCounters = new Map<string, (text: string) => number>();
  if (isTransformersSpec(defaultSpec)) {
    const options = { allowRemoteModels: engineConfig.allowRemoteModels === true, ...(engineConfig.transformersCacheDir ? { cacheDir: engineConfig.transformersCacheDir } : {}) };
    nliCounters.set(defaultSpec.id, await loadTokenCounter(defaultSpec, options));
  }
  const [weights, tokenizer] = await Promise.all([shareWeights(), loadVocabulary().then(engineTokenizer)]);
  const peers = connectWorkers(count, rowSplit);
  const started = await Promise.allSettled(Array.from({ length: count }, (_, i) => startWorker({ config: engineConfig, weights, ...(peers ? { peers: peers[i] } : {}) }, workerExecArgv)));
  const ok = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await Promise.all(ok.map((w) => w.thread.terminate()));
    throw failed.reason;
  }
  return new EnginePool(ok, registry, tokenizer, defaultModel, nliCounters);
}
