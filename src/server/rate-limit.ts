/**
 * Per-key rate limits as token buckets: requests per minute and input tokens per second.
 *
 * Bucket state lives behind `RateLimitStore`, so that several server instances serving one set
 * of keys can share it (a store backed by Redis or similar implements `consume` atomically,
 * e.g. as one script running `applyBucket`). The in-memory store is the default.
 *
 * Input tokens are only known after tokenisation, so the token bucket is charged *after* an
 * evaluation with its `usage.input_tokens`, and a request is admitted only while the bucket
 * is not empty. A request may therefore overdraw the bucket; the debt is capped at one bucket's
 * capacity and repaid by refill before the key's next request is admitted. This charges
 * exactly what is billed, costs no second tokenisation, and still bounds a key's throughput.
 * @module
 */

/** Shape of one bucket: how much it holds and how fast it refills. */
export interface BucketSpec {
  capacity: number;
  refillPerSecond: number;
}

/** Stored state of one bucket. */
export interface BucketState {
  /** Current level; negative while in debt. */
  level: number;
  /** When `level` was computed, in ms since the epoch. */
  updatedMs: number;
}

/** One operation on a bucket. */
export interface BucketOp {
  /** Amount to take when admitted. */
  cost: number;
  /** Admit only if the refilled level is at least this much (use `-Infinity` to always admit). */
  require: number;
  /** Lowest level the bucket may fall to (debt cap). */
  floor: number;
}

/** Outcome of a bucket operation. */
export interface BucketResult {
  admitted: boolean;
  /** Level after the operation. */
  level: number;
  /** When refused: milliseconds until the bucket reaches `require`. */
  retryAfterMs: number;
}

/** The bucket arithmetic, shared by every store so they cannot disagree. Pure. */
export function applyBucket(
  state: BucketState | undefined,
  spec: BucketSpec,
  op: BucketOp,
  nowMs: number,
): { state: BucketState; result: BucketResult } {
  const elapsed = state === undefined ? 0 : Math.max(0, nowMs - state.updatedMs) / 1000;
  const level = state === undefined ? spec.capacity : Math.min(spec.capacity, state.level + elapsed * spec.refillPerSecond);
  if (level < op.require) {
    const retryAfterMs = spec.refillPerSecond > 0 ? Math.ceil(((op.require - level) / spec.refillPerSecond) * 1000) : Number.POSITIVE_INFINITY;
    return { state: { level, updatedMs: nowMs }, result: { admitted: false, level, retryAfterMs } };
  }
  const next = Math.max(op.floor, level - op.cost);
  return { state: { level: next, updatedMs: nowMs }, result: { admitted: true, level: next, retryAfterMs: 0 } };
}

/** Where bucket states live. Implementations must apply `consume` atomically per key. */
export interface RateLimitStore {
  consume(key: string, spec: BucketSpec, op: BucketOp, nowMs: number): BucketResult | Promise<BucketResult>;
  /** Releases timers or connections. */
  close?(): void | Promise<void>;
}

/** The default store: a Map in this process. Full buckets are forgotten, so it stays small. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly buckets = new Map<string, { state: BucketState; spec: BucketSpec }>();

  constructor(private readonly maxEntries = 100_000) {}

  consume(key: string, spec: BucketSpec, op: BucketOp, nowMs: number): BucketResult {
    const { state, result } = applyBucket(this.buckets.get(key)?.state, spec, op, nowMs);
    this.buckets.set(key, { state, spec });
    if (this.buckets.size > this.maxEntries) this.sweep(nowMs);
    return result;
  }

  /** Number of buckets held (for tests). */
  get size(): number {
    return this.buckets.size;
  }

  /** Drops buckets that have refilled completely; they equal a fresh bucket. */
  sweep(nowMs: number): void {
    for (const [key, { state, spec }] of this.buckets) {
      const level = state.level + (Math.max(0, nowMs - state.updatedMs) / 1000) * spec.refillPerSecond;
      if (level >= spec.capacity) this.buckets.delete(key);
    }
    // Still too many (a flood of distinct keys): drop the oldest entries.
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= this.maxEntries) break;
      this.buckets.delete(key);
    }
  }
}

/** Limits of one key. A value of 0 or `Infinity` disables that limit. */
export interface RateLimits {
  /** Requests per minute. Default 1,200. */
  requestsPerMinute: number;
  /** Input tokens per second. Default 250,000. */
  inputTokensPerSecond: number;
  /**
   * Estimated work per second, in work units (state-token equivalents, see the engine's
   * `workUnits`). Default 2,000: what one engine (one core) runs on the development machine,
   * so one key cannot take more than about one core for long, whatever its requests look like.
   * The bucket holds {@link WORK_BURST_SECONDS} seconds of it. Absent: off (a `RateLimiter`
   * built by hand); `serve()` always sets it.
   */
  workUnitsPerSecond?: number;
}

export const DEFAULT_RATE_LIMITS: RateLimits = { requestsPerMinute: 1200, inputTokensPerSecond: 250_000, workUnitsPerSecond: 2_000 };

/** Seconds of work a key's work bucket holds: its burst, and its largest debt. */
export const WORK_BURST_SECONDS = 30;

/** Which limit refused a request. */
export type LimitName = 'requests_per_minute' | 'input_tokens_per_second' | 'work_units_per_second';

export type Admission = { admitted: true } | { admitted: false; limit: LimitName; retryAfterMs: number };

const enabled = (n: number): boolean => Number.isFinite(n) && n > 0;

/** Applies the two buckets of a key. */
export class RateLimiter {
  private readonly requests: BucketSpec | null;
  private readonly tokens: BucketSpec | null;
  private readonly work: BucketSpec | null;

  constructor(
    readonly limits: RateLimits,
    private readonly store: RateLimitStore = new MemoryRateLimitStore(),
    private readonly now: () => number = Date.now,
  ) {
    this.requests = enabled(limits.requestsPerMinute)
      ? { capacity: limits.requestsPerMinute, refillPerSecond: limits.requestsPerMinute / 60 }
      : null;
    this.tokens = enabled(limits.inputTokensPerSecond)
      ? { capacity: limits.inputTokensPerSecond, refillPerSecond: limits.inputTokensPerSecond }
      : null;
    const work = limits.workUnitsPerSecond ?? 0;
    this.work = enabled(work) ? { capacity: work * WORK_BURST_SECONDS, refillPerSecond: work }
      : null;
  }

  /**
   * Admits one request of `key`: the work and token buckets must not be empty (checked first,
   * so a refused request costs nothing), then one request is taken from the request bucket.
   */
  async admit(key: string): Promise<Admission> {
    const now = this.now();
    if (this.work) {
      const peek = await this.store.consume(`${key}:work`, this.work, { cost: 0, require: 1, floor: -this.work.capacity }, now);
      if (!peek.admitted) return { admitted: false, limit: 'work_units_per_second', retryAfterMs: peek.retryAfterMs };
    }
    if (this.tokens) {
      // Peek: require a positive level, take nothing.
      const peek = await this.store.consume(`${key}:tok`, this.tokens, { cost: 0, require: 1, floor: -this.tokens.capacity }, now);
      if (!peek.admitted) return { admitted: false, limit: 'input_tokens_per_second', retryAfterMs: peek.retryAfterMs };
    }
    if (this.requests) {
      const take = await this.store.consume(`${key}:req`, this.requests, { cost: 1, require: 1, floor: 0 }, now);
      if (!take.admitted) return { admitted: false, limit: 'requests_per_minute', retryAfterMs: take.retryAfterMs };
    }
    return { admitted: true };
  }

  /**
   * Charges the estimated work of an evaluation, as soon as it is known (before the encoding
   * runs), so that a key's concurrent requests see it. The debt is capped at one bucket.
   */
  async chargeWork(key: string, units: number): Promise<void> {
    if (!this.work || !(units > 0)) return;
    await this.store.consume(`${key}:work`, this.work, { cost: units, require: Number.NEGATIVE_INFINITY, floor: -this.work.capacity }, this.now());
  }

  /** Charges the input tokens an evaluation used. */
  async charge(key: string, inputTokens: number): Promise<void> {
    if (!this.tokens || !(inputTokens > 0)) return;
    await this.store.consume(
      `${key}:tok`,
      this.tokens,
      { cost: inputTokens, require: Number.NEGATIVE_INFINITY, floor: -this.tokens.capacity },
      this.now(),
    );
  }
}
