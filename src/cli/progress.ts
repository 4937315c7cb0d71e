/**
 * A one-line spinner on stderr while something slow runs (loading the model). It draws only
 * when stderr is a terminal, so pipes, logs and tests see nothing, and it erases its own line
 * when it stops, so that what follows starts on a clean line.
 * @module
 */
import type { OutStream } from './io.js';

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A running indicator; `stop()` is idempotent. */
export interface Progress {
  /** Replaces the label (e.g. from "Loading" to "Evaluating"). */
  update(label: string): void;
  stop(): void;
}

/**
 * Starts a spinner with `label` and the elapsed seconds, redrawn every `intervalMs`.
 * Returns a no-op indicator when `stream` is not a TTY.
 */
export function startProgress(stream: OutStream, label: string, intervalMs = 80): Progress {
  if (!stream.isTTY) return { update: () => undefined, stop: () => undefined };
  const started = Date.now();
  let frame = 0;
  let text = label;
  let stopped = false;
  const draw = (): void => {
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    stream.write(`\r\x1b[K${FRAMES[frame++ % FRAMES.length]} ${text} ${seconds}s`);
  };
  draw();
  const timer = setInterval(draw, intervalMs);
  // The spinner must never keep the process alive on its own.
  timer.unref?.();
  return {
    update(next) {
      text = next;
      if (!stopped) draw();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write('\r\x1b[K');
    },
  };
}
