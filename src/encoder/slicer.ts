/**
 * Encoder work cut into runs the event loop can live with: a long state or a 255-option question
 * never blocks the thread for longer than one slice, and an abort is seen between slices.
 * @module
 */

/**
 * Tokens encoded between two yields to the event loop (about 2.5 GFLOP, 70 ms at 35 GFLOP/s):
 * a long state or a 255-option question never blocks the thread for longer than that. Each
 * sequence is encoded on its own, so where the passes are cut changes no result.
 */
export const TOKENS_PER_SLICE = 256;

/** Lets queued tasks run: setImmediate in Node, a zero timeout in a browser page. */
const yieldToEventLoop = () =>
  new Promise<void>((resolve) => (typeof setImmediate === 'function' ? setImmediate(resolve) : setTimeout(resolve, 0)));

/**
 * Feeds windows to `encode` in runs of about TOKENS_PER_SLICE tokens and yields to the event
 * loop between runs. One Slicer spans a whole call, so its budget carries across texts.
 */
export class Slicer {
  private budget = TOKENS_PER_SLICE;

  /**
   * Stops before the next run once `signal` aborts: the event loop runs between runs, so an
   * abort (a client gone, a deadline) is seen within one slice of work.
   */
  async each(windows: readonly number[][], encode: (run: number[][]) => void | Promise<void>, signal?: AbortSignal): Promise<void> {
    let run: number[][] = [];
    for (const w of windows) {
      if (signal?.aborted) return;
      if (this.budget <= 0) {
        if (run.length > 0) await encode(run);
        run = [];
        await yieldToEventLoop();
        this.budget = TOKENS_PER_SLICE;
        if (signal?.aborted) return;
      }
      run.push(w);
      this.budget -= Math.max(1, w.length);
    }
    if (run.length > 0) await encode(run);
  }
}

