/**
 * Two cores for one encoder pass. tfjs' wasm backend computes on one thread, so a lone request
 * leaves the machine's other cores idle while its state's windows are encoded one after the
 * other. In an engine pool, a worker may hand some of a pass's windows to an idle peer worker
 * (same code, same weights, same backend) and encode the rest meanwhile.
 *
 * Results are unchanged: every window is encoded on its own (a sequence's result depends on
 * its own tokens only, see transformer.ts), so which thread encodes it, and with which other
 * windows, changes no bit; sums and token states are put back in window order before pooling.
 * @module
 */

/** Per-window results of encoding windows elsewhere, in the order they were sent. */
export interface WindowResults {
  /** [windows, 512] token-state sums. */
  sums: Float32Array;
  /** [tokens of all windows, 512] final token states, or null when not asked for. */
  states: Float32Array | null;
}

/** Another thread's encoder that can take windows off this one. */
export interface WindowHelper {
  /** Whether it is idle now: a busy helper would only make this pass wait for its turn. */
  available(): boolean;
  /** Encodes `windows` there (each on its own, as `Encoder` does here). */
  encode(windows: readonly (readonly number[])[], keepStates: boolean): Promise<WindowResults>;
}

/**
 * Fixed cost of a window in token-equivalents: a 52-token window takes about 65% of a
 * 128-token one on the wasm backend (per-op overhead and XNNPACK's lower rate on few rows),
 * plus the message round trip for a window sent away.
 */
const WINDOW_COST = 64;
const SEND_COST = 16;

/** Passes with fewer tokens than this stay on one thread: the hand-off would cost more than it saves. */
export const MIN_SPLIT_TOKENS = 160;

/**
 * Windows of at most this many tokens always stay here: they run in equal-length groups (see
 * SHORT_SEQUENCE_MAX in transformer.ts), and measured in a pool, sending them away cost more
 * CPU than it saved wall time (new question texts, ~10 tokens each, got slower).
 */
export const MIN_SENT_WINDOW = 33;

/**
 * Which windows go to the helper (true) and which stay (false): longest first to the side that
 * would finish earlier (ties stay here); short windows stay. Returns null when nothing should move.
 */
export function splitWindows(lengths: readonly number[]): boolean[] | null {
  const total = lengths.reduce((s, n) => s + n, 0);
  if (lengths.length < 2 || total < MIN_SPLIT_TOKENS) return null;
  const order = lengths.map((n, i) => [n, i] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
  const remote = new Array<boolean>(lengths.length).fill(false);
  let here = 0;
  let there = SEND_COST;
  for (const [n, i] of order) {
    const cost = n + WINDOW_COST;
    if (there < here && n >= MIN_SENT_WINDOW) {
      remote[i] = true;
      there += cost;
    } else {
      here += cost;
    }
  }
  return remote.some(Boolean) ? remote : null;
}
