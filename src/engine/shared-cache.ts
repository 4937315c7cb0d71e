/**
 * A byte-bounded LRU whose misses are computed once for every concurrent caller, under a signal
 * of the cache's own: the computation is aborted only when every caller waiting on it has been
 * aborted, so a client that leaves never fails another client's identical request (each caller
 * still rejects as soon as its own signal aborts). Used by the state cache (state encodings) and
 * by the transformers-nli models' cache (a question's logits against a state).
 * @module
 */
import { LRUCache } from 'lru-cache';
import { abortReason } from '../encoder/abort.js';

/** Computes a missing value; should stop soon once `signal` aborts. */
export type Compute<V> = (signal: AbortSignal | undefined) => Promise<V>;

interface Flight<V> {
  promise: Promise<V>;
  controller: AbortController;
  waiters: number;
}

/** Resolves like `promise`, or rejects as soon as `signal` aborts. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class SharedCache<V extends object> {
  private readonly lru: LRUCache<string, V> | null;
  private readonly flights = new Map<string, Flight<V>>();
  /** Calls answered from the cache or from a concurrent caller's computation. */
  hits = 0;
  /** Calls that started a computation (every call when the cache is off). */
  misses = 0;

  /** `budgetBytes` 0 turns the cache off: every call computes under its own signal. */
  constructor(
    readonly budgetBytes: number,
    sizeOf: (value: V, key: string) => number,
  ) {
    this.lru = budgetBytes > 0 ? new LRUCache<string, V>({ maxSize: budgetBytes, sizeCalculation: sizeOf }) : null;
  }

  /** The value of `key`: cached, from a concurrent caller's computation, or computed. Rejects with `signal`'s reason once it aborts. */
  async get(key: string, compute: Compute<V>, signal?: AbortSignal): Promise<V> {
    if (!this.lru) {
      this.misses++;
      return compute(signal);
    }
    const cached = this.lru.get(key);
    if (cached) {
      this.hits++;
      return cached;
    }
    if (signal?.aborted) throw abortReason(signal);
    let flight = this.flights.get(key);
    if (flight) this.hits++;
    else {
      this.misses++;
      const controller = new AbortController();
      const promise = compute(controller.signal).then((value) => {
        // A value larger than the whole budget is computed but not kept.
        this.lru?.set(key, value);
        return value;
      });
      const started: Flight<V> = { promise, controller, waiters: 0 };
      flight = started;
      this.flights.set(key, started);
      void promise.catch(() => undefined).finally(() => this.flights.get(key) === started && this.flights.delete(key));
    }
    const joined = flight;
    joined.waiters++;
    try {
      return await untilAborted(joined.promise, signal);
    } finally {
      joined.waiters--;
      if (joined.waiters === 0 && signal?.aborted) {
        // Nobody waits any more: stop the computation, and let a later caller start afresh.
        if (this.flights.get(key) === joined) this.flights.delete(key);
        joined.controller.abort(abortReason(signal));
      }
    }
  }

  get size(): number {
    return this.lru?.size ?? 0;
  }

  get bytes(): number {
    return this.lru?.calculatedSize ?? 0;
  }

  clear(): void {
    this.lru?.clear();
  }
}
