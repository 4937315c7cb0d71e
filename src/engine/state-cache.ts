/**
 * Cross-request cache of state encodings, keyed by (versioned model id, canonical state text),
 * bounded by bytes. Built on lru-cache, whose `fetch` makes concurrent requests for the same
 * state share one encoding instead of racing to compute it twice.
 * @module
 */
import { LRUCache } from 'lru-cache';
import { encodingBytes, type StateEncoding } from '../encoder/index.js';
import type { CacheStats } from './contract.js';

/** Computes an encoding on a miss. */
export type EncodeState = () => Promise<StateEncoding>;

export class StateCache {
  private readonly lru: LRUCache<string, StateEncoding, EncodeState> | null;
  private hits = 0;
  private misses = 0;

  constructor(private readonly budgetBytes: number) {
    this.lru =
      budgetBytes > 0
        ? new LRUCache<string, StateEncoding, EncodeState>({
            maxSize: budgetBytes,
            sizeCalculation: (value, key) => encodingBytes(value) + key.length * 2,
            fetchMethod: (_key, _stale, { context }) => context(),
          })
        : null;
  }

  /** The encoding of a state: from the cache, from a concurrent caller's pass, or computed. */
  async get(modelId: string, stateText: string, encode: EncodeState): Promise<StateEncoding> {
    if (!this.lru) {
      this.misses++;
      return encode();
    }
    const status: LRUCache.Status<string, StateEncoding, EncodeState> = {};
    const value = await this.lru.fetch(`${modelId}\u0000${stateText}`, { context: encode, status });
    if (status.fetch === 'miss') this.misses++;
    else this.hits++;
    // An encoding larger than the whole budget is computed but not kept; fetch then returns it.
    if (!value) throw new Error('State cache fetch returned no value');
    return value;
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
