/**
 * Aborting encoder passes: the encoder checks a request's signal at every window slice
 * (index.ts, `Slicer`), never inside the tfjs ops, so any backend's window loop can do the same.
 * @module
 */

/** The error an aborted signal stands for: its reason when that is an Error, else an AbortError. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The evaluation was aborted', 'AbortError');
}

/**
 * A signal that aborts once every state of a pass is aborted (windows sent to a helper serve
 * them all); undefined when one of them cannot be aborted.
 */
export function wholeBatchSignal(signals: readonly (AbortSignal | undefined)[]): AbortSignal | undefined {
  if (!signals.every((s): s is AbortSignal => s !== undefined)) return undefined;
  const whole = new AbortController();
  const check = () => {
    if (signals.every((s) => s.aborted)) whole.abort(new DOMException('The evaluation was aborted', 'AbortError'));
  };
  for (const s of signals) s.addEventListener('abort', check, { once: true });
  check();
  return whole.signal;
}

