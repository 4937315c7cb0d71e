/**
 * The per-request compute deadline: from the start of an evaluation (not its wait in the
 * queue), after `ms` the evaluation's abort signal fires, the engine stops at its next window
 * boundary (in a pool worker too), and the request is answered 504 `compute_deadline`.
 * @module
 */
import { HttpError } from './http-error.js';

export class ComputeDeadline {
  private timer: NodeJS.Timeout | undefined;
  /** Whether the deadline fired. */
  passed = false;

  /** `ms` 0 means no deadline. */
  constructor(
    private readonly ms: number,
    private readonly abort: AbortController,
  ) {}

  /** Starts the clock (when the evaluation starts). */
  start(): void {
    if (this.ms <= 0) return;
    this.timer = setTimeout(() => {
      this.passed = true;
      this.abort.abort(new DOMException('The compute deadline passed', 'TimeoutError'));
    }, this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  /** The 504 answer. */
  error(): HttpError {
    return new HttpError(
      504,
      'timeout_error',
      'compute_deadline',
      `The evaluation did not finish within the compute deadline of ${this.ms} ms and was stopped. Send a smaller request (fewer or shorter questions, options or state).`,
      { limit_ms: this.ms },
    );
  }
}
