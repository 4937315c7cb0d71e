/**
 * Cross-request cache of state encodings, keyed by (versioned model id, canonical state text),
 * bounded by bytes. Concurrent requests for the same state share one encoding pass instead of
 * racing to compute it twice; that pass is aborted only when every request waiting on it has
 * been aborted (a client that leaves must not fail another client's identical request).
 * @module
 */
import { LRUCache } from 'lru-cache';
import { abortReason, encodingBytes, type StateEncoding } from '../encoder/index.js';
import type { CacheStats } from './contract.js';

/** Computes an encoding on a miss; stops at its next window boundary once `signal` aborts. */
export type EncodeState = (signal: AbortSignal | undefined) => Promise<StateEncoding>;

interface Flight {
  promise: Promise<StateEncoding>;
  controller: AbortController;
  waiters: number;
}

/** Resolves like `promise`, or rejects as soon as `signal` aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

export class StateCache {
  private readonly lru: LRUCache<string, StateEncoding> | null;
  private readonly flights = new Map<string, Flight>();
  private hits = 0;
  private misses = 0;

  constructor(private readonly budgetBytes: number) {
    this.lru =
      budgetBytes > 0
        ? new LRUCache<string, StateEncoding>({
            maxSize: budgetBytes,
            sizeCalculation: (value, key) => encodingBytes(value) + key.length * 2,
          })
        : null;
  }

  /**
   * The encoding of a state: from the cache, from a concurrent caller's pass, or computed.
   * Rejects with `signal`'s reason once it aborts.
   */
  async get(modelId: string, stateText: string, encode: EncodeState, signal?: AbortSignal): Promise<StateEncoding> {
    if (!this.lru) {
      this.misses++;
      return encode(signal);
    }
    const key = `${modelId}\u0000${stateText}`;
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
      const promise = encode(controller.signal).then((value) => {
        // An encoding larger than the whole budget is computed but not kept.
        this.lru?.set(key, value);
        return value;
      });
      const started: Flight = { promise, controller, waiters: 0 };
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
        // Nobody waits any more: stop the pass, and let a later request start a fresh one.
        if (this.flights.get(key) === joined) this.flights.delete(key);
        joined.controller.abort(abortReason(signal));
      }
    }
  }

  stats(): CacheStats {
    return {
      hits: this.hits,
      misses: this.misses,
      entries: this.lru?.size ?? 0,
      bytes: this.lru?.calculatedSize ?? 0,
      budgetBytes: this.budgetBytes,
    };
  }

  clear(): void {
    this.lru?.clear();
  }
}
