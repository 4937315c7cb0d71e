/**
 * Cross-request cache of state encodings, keyed by (versioned model id, canonical state text),
 * bounded by bytes. Concurrent requests for the same state share one encoding pass instead of
 * racing to compute it twice; that pass is aborted only when every request waiting on it has
 * been aborted (a client that leaves must not fail another client's identical request; see
 * shared-cache.ts).
 * @module
 */
import { encodingBytes, type StateEncoding } from '../encoder/index.js';
import type { CacheStats } from './contract.js';
import { SharedCache } from './shared-cache.js';

/** Computes an encoding on a miss; stops at its next window boundary once `signal` aborts. */
export type EncodeState = (signal: AbortSignal | undefined) => Promise<StateEncoding>;

export class StateCache {
  private readonly cache: SharedCache<StateEncoding>;

  constructor(budgetBytes: number) {
    this.cache = new SharedCache<StateEncoding>(budgetBytes, (value, key) => encodingBytes(value) + key.length * 2);
  }

  /**
   * The encoding of a state: from the cache, from a concurrent caller's pass, or computed.
   * Rejects with `signal`'s reason once it aborts.
   */
  get(modelId: string, stateText: string, encode: EncodeState, signal?: AbortSignal): Promise<StateEncoding> {
    return this.cache.get(`${modelId}\u0000${stateText}`, encode, signal);
  }

  stats(): CacheStats {
    return { hits: this.cache.hits, misses: this.cache.misses, entries: this.cache.size, bytes: this.cache.bytes, budgetBytes: this.cache.budgetBytes };
  }

  clear(): void {
    this.cache.clear();
  }
}
