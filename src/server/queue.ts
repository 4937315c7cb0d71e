/**
 * The bounded work queue in front of `engine.evaluate`.
 *
 * At most `concurrency` evaluations run at once; at most `maxQueued` more wait, and the work
 * they would cost (their estimates, in work units) adds up to at most `maxQueuedWork` (beyond
 * the first in line, so a request the engine accepts is never refused forever). Work beyond
 * that is refused at once (`QueueFullError`, answered 529) rather than piling up latency and
 * memory: a count of requests alone lets 16 queued 28k-token states wait minutes. Each job starts from a fresh macrotask (`setImmediate`), so socket I/O and timers
 * of other requests run between evaluations: an evaluation's synchronous encoder step is the
 * longest the event loop is ever held.
 * @module
 */

/** The queue is full. */
export class QueueFullError extends Error {
  override name = 'QueueFullError';
  constructor(
    /** Estimated wait before a slot frees, in ms. */
    readonly retryAfterMs: number,
    /** Which bound refused it: the number of queued evaluations, or their work. */
    readonly bound: 'requests' | 'work' = 'requests',
  ) {
    super('Too much work is queued');
  }
}

interface Waiting {
  start: () => void;
  /** Estimated work units. */
  work: number;
}

export interface WorkQueueOptions {
  /** Evaluations running at once. */
  concurrency: number;
  /** Evaluations waiting for a slot, beyond which work is refused. */
  maxQueued: number;
  /** Work units of waiting evaluations, beyond which work is refused; 0 or Infinity: no bound. */
  maxQueuedWork?: number;
}

/** A FIFO with bounded concurrency and a bounded backlog. */
export class WorkQueue {
  private running = 0;
  private readonly waiting: Waiting[] = [];
  /** Exponential moving average of job durations, for retry estimates. */
  private avgMs = 0;
  private idleWaiters: (() => void)[] = [];
  /** Work units of the waiting jobs. */
  private waitingWork = 0;

  constructor(private readonly options: WorkQueueOptions) {
    if (!(Number.isInteger(options.concurrency) && options.concurrency >= 1)) throw new RangeError('concurrency must be an integer >= 1');
    if (!(Number.isInteger(options.maxQueued) && options.maxQueued >= 0)) throw new RangeError('maxQueued must be an integer >= 0');
  }

  get active(): number {
    return this.running;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Estimated work units of the waiting evaluations. */
  get queuedWork(): number {
    return this.waitingWork;
  }

  /** Estimated ms until a newly queued job would start. */
  estimateWaitMs(): number {
    const perJob = this.avgMs > 0 ? this.avgMs : 250;
    return Math.ceil((perJob * (this.waiting.length + 1)) / this.options.concurrency);
  }

  /**
   * Runs `job` (estimated at `work` units) when a slot frees. Throws `QueueFullError`
   * synchronously-ish (a rejected promise) when the backlog is full, in requests or in work;
   * rejects with `signal.reason` if aborted while waiting.
   */
  run<T>(job: () => Promise<T>, signal?: AbortSignal, work = 0): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.running + this.waiting.length >= this.options.concurrency + this.options.maxQueued) {
      return Promise.reject(new QueueFullError(this.estimateWaitMs()));
    }
    const maxWork = this.options.maxQueuedWork ?? 0;
    // Jobs that wait for a slot ahead of this one (waiting holds those about to start too).
    const ahead = this.running + this.waiting.length - this.options.concurrency;
    if (ahead > 0 && maxWork > 0 && this.waitingWork + work > maxWork) {
      return Promise.reject(new QueueFullError(this.estimateWaitMs(), 'work'));
    }
    return new Promise<T>((resolve, reject) => {
      const entry: Waiting = {
        work,
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          this.running++;
          const started = performance.now();
          let result: Promise<T>;
          try {
            result = job();
          } catch (error) {
            result = Promise.reject(error);
          }
          result.then(resolve, reject).finally(() => {
            const took = performance.now() - started;
            this.avgMs = this.avgMs === 0 ? took : this.avgMs * 0.8 + took * 0.2;
            this.running--;
            this.pump();
          });
        },
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(entry);
        if (i >= 0) {
          this.waiting.splice(i, 1);
          this.waitingWork -= entry.work;
          reject(signal?.reason);
          this.notifyIdle();
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(entry);
      this.waitingWork += work;
      this.pump();
    });
  }

  /** Resolves when nothing runs and nothing waits. */
  idle(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private scheduled = 0;

  private pump(): void {
    // Start waiting jobs on later macrotasks, never inside the caller's stack.
    while (this.running + this.scheduled < this.options.concurrency && this.waiting.length > this.scheduled) {
      this.scheduled++;
      setImmediate(() => {
        this.scheduled--;
        const next = this.waiting.shift();
        if (next) {
          this.waitingWork -= next.work;
          next.start();
        }
        else this.notifyIdle();
      });
    }
    this.notifyIdle();
  }

  private notifyIdle(): void {
    if (this.running === 0 && this.waiting.length === 0 && this.scheduled === 0 && this.idleWaiters.length > 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }
}
