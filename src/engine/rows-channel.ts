/**
 * The row split between two pool workers (encoder/rows.ts): both run one side of a row job in
 * lockstep and swap keys and values once per layer through shared memory, the helper sending
 * its final token states at the end. A swap is about 0.13 ms for 256 KB each way with Atomics
 * (0.3 ms as a transferred postMessage), and a blocked wait costs nothing while the other side
 * computes; the job description itself goes over the workers' MessagePort, which also wakes
 * the helper's event loop.
 *
 * Never a hang, never a wrong result: the owner offers a job, and if the helper has not claimed
 * it within CLAIM_MS (it was busy after all) the owner withdraws it (one compare-and-swap
 * decides between claim and withdrawal) and encodes the windows itself. After the claim, a
 * side that waits longer than STEP_MS for the other, or whose other side failed, marks the job
 * aborted (which wakes the other side) and gives up; the owner then encodes everything itself.
 * Every swap is tagged with the job and step, so a late side never reads another job's rows.
 *
 * Buffer reuse is safe without double buffering: the owner publishes then reads, the helper
 * reads then publishes, so neither overwrites its outbox before the other has copied it.
 * @module
 */
import type { RowJob, RowSide } from '../encoder/index.js';

/** Control words, then the owner's outbox, then the helper's. */
const JOB = 0;
const SEQ = [1, 2] as const;
const LENGTH = [3, 4] as const;
const ABORT = 5;
const CONTROL_BYTES = 32;

/** The most rows a side holds (MAX_ROW_TOKENS / 2 plus rounding) times two (keys and values) times 512. */
const OUTBOX_FLOATS = 2 * 168 * 512;

/** A helper has this long to take an offered job (it is idle when offered: it wakes in < 1 ms). */
export const CLAIM_MS = 50;
/** The longest wait for the other side's rows of one step (a step computes in 5 to 25 ms). */
export const STEP_MS = 500;

/** One owner-to-helper pair's shared memory for row jobs (created by the owner, once). */
export function rowBuffer(): SharedArrayBuffer {
  return new SharedArrayBuffer(CONTROL_BYTES + 2 * OUTBOX_FLOATS * 4);
}

/** Whether both sides' keys and values fit an outbox. */
function fits(job: RowJob): boolean {
  const rows = (side: 0 | 1) => job.windows.reduce((n, w, i) => n + (side === 0 ? job.cuts[i]! : w.length - job.cuts[i]!), 0);
  return 2 * 512 * Math.max(rows(0), rows(1)) <= OUTBOX_FLOATS;
}

class Channel {
  readonly control: Int32Array;
  private readonly outbox: [Float32Array, Float32Array];

  constructor(
    buffer: SharedArrayBuffer,
    private readonly id: number,
    private readonly side: 0 | 1,
  ) {
    this.control = new Int32Array(buffer, 0, CONTROL_BYTES / 4);
    this.outbox = [new Float32Array(buffer, CONTROL_BYTES, OUTBOX_FLOATS), new Float32Array(buffer, CONTROL_BYTES + OUTBOX_FLOATS * 4, OUTBOX_FLOATS)];
  }

  private tag(step: number): number {
    return ((this.id & 0xfffffff) << 3) | step;
  }

  publish(step: number, values: Float32Array): void {
    if (values.length > OUTBOX_FLOATS) throw new RangeError('encoder rows: a side does not fit the shared buffer');
    this.outbox[this.side].set(values);
    Atomics.store(this.control, LENGTH[this.side], values.length);
    Atomics.store(this.control, SEQ[this.side], this.tag(step));
    Atomics.notify(this.control, SEQ[this.side]);
  }

  /** Whether the other side's rows of `step` are there already. */
  has(step: number): boolean {
    return Atomics.load(this.control, SEQ[this.side === 0 ? 1 : 0]) === this.tag(step);
  }

  /** The other side's rows of `step` (a copy), or null on abort or timeout (which aborts). */
  receive(step: number, timeoutMs: number): Float32Array | null {
    const other = this.side === 0 ? 1 : 0;
    const want = this.tag(step);
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      if (Atomics.load(this.control, ABORT) === this.id) return null;
      const seen = Atomics.load(this.control, SEQ[other]);
      if (seen === want) break;
      const left = deadline - performance.now();
      if (left <= 0) {
        this.abort();
        return null;
      }
      Atomics.wait(this.control, SEQ[other], seen, left);
    }
    return this.outbox[other].slice(0, Atomics.load(this.control, LENGTH[other]));
  }

  /** Marks the job aborted and wakes whichever side waits. */
  abort(): void {
    Atomics.store(this.control, ABORT, this.id);
    for (const i of SEQ) Atomics.notify(this.control, i);
    Atomics.notify(this.control, JOB);
  }
}

/**
 * The owner's side: offers job `id` (`offer` sends its description to the helper), runs `mine`
 * in lockstep with the helper, and `meanwhile` at the first step where the helper's rows are
 * not there yet (or at the end), then takes the helper's final rows. Returns null when the
 * helper did not take part or a step failed or timed out.
 */
export function ownRowJob(
  buffer: SharedArrayBuffer,
  id: number,
  job: RowJob,
  mine: RowSide,
  offer: () => void,
  meanwhile: () => void,
): { mine: Float32Array[]; theirs: Float32Array[] } | null {
  if (!fits(job)) return null;
  const channel = new Channel(buffer, id, 0);
  const control = channel.control;
  Atomics.store(control, JOB, id);
  offer();
  let claimed = false;
  let step = 0;
  // Our other work (short windows) fills a wait for the helper instead of following the job.
  let pending = meanwhile as (() => void) | null;
  const fill = () => {
    const work = pending;
    pending = null;
    work?.();
  };
  let r = mine.next();
  try {
    while (!r.done) {
      channel.publish(step, r.value);
      if (!claimed) {
        const deadline = performance.now() + CLAIM_MS;
        while (Atomics.load(control, JOB) === id && performance.now() < deadline) Atomics.wait(control, JOB, id, deadline - performance.now());
        // Withdraw unless the helper claimed it meanwhile (one of the two swaps wins).
        if (Atomics.compareExchange(control, JOB, id, 0) === id) return null;
        claimed = true;
      }
      if (pending && !channel.has(step)) fill();
      const theirs = channel.receive(step, STEP_MS);
      if (!theirs) return null;
      r = mine.next(theirs);
      step++;
    }
  } catch (error) {
    channel.abort();
    throw error;
  }
  fill();
  const final = channel.receive(step, STEP_MS);
  if (!final) return null;
  // The helper's rows of each window, one after the other.
  const theirs: Float32Array[] = [];
  let at = 0;
  job.windows.forEach((w, i) => {
    const n = (w.length - job.cuts[i]!) * 512;
    theirs.push(final.slice(at, at + n));
    at += n;
  });
  return at === final.length ? { mine: r.value, theirs } : null;
}

/**
 * The helper's side of job `id`: claims it (false if the owner withdrew it first), then runs
 * `side` in lockstep with the owner and sends its final rows. Gives up quietly if the owner
 * aborts or stalls; a failure of its own aborts the job, so the owner stops waiting at once.
 */
export function helpRowJob(buffer: SharedArrayBuffer, id: number, side: () => RowSide): boolean {
  const channel = new Channel(buffer, id, 1);
  const control = channel.control;
  if (Atomics.compareExchange(control, JOB, id, -id) !== id) return false;
  Atomics.notify(control, JOB);
  let g: RowSide | null = null;
  try {
    g = side();
    let step = 0;
    let r = g.next();
    while (!r.done) {
      // Read the owner's rows before publishing ours: the owner overwrites its outbox only
      // after it has ours.
      const theirs = channel.receive(step, STEP_MS);
      if (!theirs) return true;
      channel.publish(step, r.value);
      r = g.next(theirs);
      step++;
    }
    const rows = r.value;
    const final = new Float32Array(rows.reduce((n, x) => n + x.length, 0));
    let at = 0;
    for (const x of rows) {
      final.set(x, at);
      at += x.length;
    }
    channel.publish(step, final);
  } catch {
    channel.abort();
  } finally {
    g?.return([]);
  }
  return true;
}
