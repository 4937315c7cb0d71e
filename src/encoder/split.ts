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
  /**
   * Encodes `windows` there (each on its own, as `Encoder` does here); once `signal` aborts,
   * the helper stops at its next window boundary.
   */
  encode(windows: readonly (readonly number[])[], keepStates: boolean, signal?: AbortSignal): Promise<WindowResults>;
  /**
   * The row split (rows.ts, planRows): runs `mine`, side 0 of the job, on this thread while the
   * helper runs side 1, swapping keys and values per layer; `meanwhile` (our short windows)
   * runs here at the first step where the helper's rows are not there yet, or after our side. Returns both sides' final rows per window, or null
   * when the helper did not take the job in time, failed or stalled (never waits unbounded);
   * the caller then encodes the windows itself, and nothing of the job is used.
   */
  rows?(job: RowJob, mine: RowSide, meanwhile: () => void): { mine: Float32Array[]; theirs: Float32Array[] } | null;
}

/** A row job: windows (token ids) and, per window, the first row of side 1. */
export interface RowJob {
  windows: number[][];
  cuts: number[];
}

/** One side of a row job, as rows.ts' encodeRows runs it. */
export type RowSide = Generator<Float32Array, Float32Array[], Float32Array | undefined>;

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

/**
 * The row split (rows.ts): the rows of a pass's windows shared between both threads, keys and
 * values swapped once per layer. Costs in token-equivalents: a window encoded whole about
 * n + WHOLE_COST; a side of a row job its rows plus WHOLE_COST per window it has rows in, plus
 * SWAP_COST for the swaps and the helper's wake-up. With layer 0 read from tables (session 4)
 * a swap follows the first layer's projections at once, so both sides start together.
 *
 * The cuts balance the rows, not each window: side 0 (this thread, which also encodes the
 * short windows, see SHORT_SEQUENCE_MAX) takes rows from the start of the long windows until
 * both sides hold half the pass's work. A state of 128 + 56 tokens is cut [92, 0]: this thread holds
 * 92 rows of the first window, the helper its last 36 and all of the second. Each side then
 * holds about 92 rows; the window split would leave 128 here against 56 there.
 */
const WHOLE_COST = 13;
const SWAP_COST = 4;

/** Passes over this many tokens use the window split only (the shared buffers are sized for it). */
export const MAX_ROW_TOKENS = 320;

/** Passes under this many tokens are not cut in rows (measured: no gain over the swaps). */
export const MIN_ROW_TOKENS = 96;

/** Which windows to cut in rows and where (every window longer than MIN_SENT_WINDOW - 1). */
export interface RowPlan {
  /** Indices of the windows in the row job; the others (short ones) are encoded here whole. */
  windows: number[];
  /** Per window of the job, the first row of the helper's side (0: all the helper's; its length: all ours). */
  cuts: number[];
}

/** A row plan when it should finish earlier than the window split (or than one thread), else null. */
export function planRows(lengths: readonly number[]): RowPlan | null {
  const total = lengths.reduce((s, n) => s + n, 0);
  if (total < MIN_ROW_TOKENS || total > MAX_ROW_TOKENS) return null;
  const windows = lengths.flatMap((n, i) => (n >= MIN_SENT_WINDOW ? [i] : []));
  if (windows.length === 0) return null;
  const short = lengths.reduce((s, n) => s + (n >= MIN_SENT_WINDOW ? 0 : n + WHOLE_COST), 0);
  const long = windows.reduce((s, i) => s + lengths[i]!, 0);
  let need = Math.max(0, Math.floor((long - short) / 2));
  const cuts = windows.map((i) => {
    const cut = Math.min(lengths[i]!, need);
    need -= cut;
    return cut;
  });
  const sideCost = (side: 0 | 1) =>
    windows.reduce((s, i, k) => {
      const rows = side === 0 ? cuts[k]! : lengths[i]! - cuts[k]!;
      return rows > 0 ? s + rows + WHOLE_COST : s;
    }, side === 0 ? short : 0) + SWAP_COST;
  const rows = Math.max(sideCost(0), sideCost(1));
  const plan = splitWindows(lengths);
  let here = 0;
  let there = plan ? SEND_COST : 0;
  lengths.forEach((n, i) => {
    if (plan?.[i]) there += n + WHOLE_COST;
    else here += n + WHOLE_COST;
  });
  if (rows >= Math.max(here, there)) return null;
  return { windows, cuts };
}
