/**
 * V8's garbage collector marks the old generation on background threads ("concurrent
 * marking"). An engine pool runs one worker per core, and a request's two halves run in
 * lockstep on both (encoder/rows.ts), so a marking thread that takes a core stalls both
 * workers. On the development machine (2 vCPU), jevbench-sample requests through a 2-worker
 * pool had a p50 of 53 to 56 ms with V8's defaults and 44 to 48 ms without concurrent marking
 * (the same as `node --single-threaded-gc`; parallel scavenging and concurrent sweeping made no
 * difference). Marking then runs in small steps on each thread itself.
 *
 * V8 flags belong to the process: this changes it for every isolate, the caller's main thread
 * included, for the rest of the process's life (turning it back on under isolates created
 * without it is not safe). `createEnginePool` calls it unless told not to
 * (`concurrentMarking: true`), and leaves alone a process started with its own GC flags.
 * @module
 */
import v8 from 'node:v8';

let applied = false;

/** Flags on Node's command line that already decide how V8 marks. */
const GC_FLAGS = /^--(?:no-)?(?:concurrent[-_]marking|single[-_]threaded[-_]gc)\b/;

/**
 * Turns V8's concurrent marking off for this process, once. Returns whether it is off by this
 * call or an earlier one (false when the command line chose the GC's threading itself).
 */
export function stopConcurrentMarking(): boolean {
  if (process.execArgv.some((a) => GC_FLAGS.test(a))) return false;
  if (!applied) {
    v8.setFlagsFromString('--no-concurrent-marking');
    applied = true;
  }
  return true;
}
