/**
 * Serving a model part beside the native encoder (the trained heads, the reader) on
 * onnxruntime-node: one attempt per loaded part, encoder backend and package, kept for the
 * process; the part's graph must pass a self-test against its tfjs path, and the reason for a
 * fallback to tfjs is kept for `engine.stats()`. The encoder's own registry (encoder/registry.ts)
 * orders more backends and stays separate.
 * @module
 */

export type PartBackendName = 'onnxruntime-node' | 'tfjs';

/** What serves a model part, and why onnxruntime-node does not when it does not. */
export interface PartBackendReport {
  backend: PartBackendName;
  tried: { name: PartBackendName; error?: string }[];
}

export type PartAttempt<R> = Promise<{ runner: R | null; report: PartBackendReport }>;

/** Largest logit difference a self-test allows (logits lie in ±15; measured differences are about 1e-5). */
export const SELF_TEST_TOLERANCE = 1e-3;

/** Throws unless `got` gives `want`'s logits within the tolerance; `of` names the tfjs path ("the tfjs reader's"). */
export function checkLogits(want: readonly (readonly number[])[], got: readonly (readonly number[])[], of: string): void {
  let worst = 0;
  want.forEach((w, i) =>
    w.forEach((v, j) => {
      const d = Math.abs(v - (got[i]?.[j] ?? NaN));
      if (!(d <= worst)) worst = d; // NaN counts as the worst
    }),
  );
  if (!(worst <= SELF_TEST_TOLERANCE)) throw new Error(`self-test failed: logits differ from ${of} by ${worst}`);
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error));
const tfjsBecause = (error: string) => ({ runner: null, report: { backend: 'tfjs' as const, tried: [{ name: 'onnxruntime-node' as const, error }, { name: 'tfjs' as const }] } });

/** The native runners of one kind of part (`K`: the loaded part, `R`: its onnxruntime runner). */
export class NativePart<K extends object, R extends { dispose(): void }> {
  private readonly attempts = new WeakMap<K, Map<string, PartAttempt<R>>>();
  private enabled = true;

  /** `switchName` names the function that turns this part's native path off, for the report. */
  constructor(private readonly switchName: string) {}

  /** Turns the native path off (tfjs everywhere) or back on, for A/B measurements; parts opened afterwards follow it. */
  setEnabled(on: boolean): void {
    this.enabled = on;
  }

  /**
   * The part's runner on onnxruntime-node when `encoderBackend` is onnxruntime-node, `open`
   * succeeds and the runner passes `selfTest`; else (or on any failure) null, with the reason.
   * Same part object and options, same answer for the process.
   */
  attempt(part: K, encoderBackend: string, module: string | undefined, open: () => Promise<R>, selfTest: (runner: R) => Promise<void>): PartAttempt<R> {
    const key = JSON.stringify([encoderBackend, module ?? '', this.enabled]);
    let byKey = this.attempts.get(part);
    if (!byKey) this.attempts.set(part, (byKey = new Map()));
    let attempt = byKey.get(key);
    if (!attempt) {
      const skip = !this.enabled ? `turned off (${this.switchName})` : encoderBackend !== 'onnxruntime-node' ? `the encoder runs on ${encoderBackend}` : null;
      attempt = skip
        ? Promise.resolve(tfjsBecause(skip))
        : (async () => {
            let runner: R | null = null;
            try {
              runner = await open();
              await selfTest(runner);
              return { runner, report: { backend: 'onnxruntime-node' as const, tried: [{ name: 'onnxruntime-node' as const }] } };
            } catch (error) {
              runner?.dispose();
              return tfjsBecause(reason(error));
            }
          })();
      byKey.set(key, attempt);
    }
    return attempt;
  }
}
