// The pool turns V8's concurrent marking off for its process (src/engine/gc-tuning.ts), unless
// Node's command line already chose how the GC uses threads.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const register = new URL('./pool-ts-register.mjs', import.meta.url).href;
const module = new URL('../src/engine/gc-tuning.ts', import.meta.url).href;

/** stopConcurrentMarking() called twice in a fresh Node process started with `flags`. */
function inFreshProcess(flags: string[]): string {
  const script = `const { stopConcurrentMarking } = await import(${JSON.stringify(module)}); console.log(JSON.stringify([stopConcurrentMarking(), stopConcurrentMarking()]));`;
  return execFileSync(process.execPath, [...flags, '--import', register, '--input-type=module', '-e', script], { encoding: 'utf8' }).trim();
}

describe('stopConcurrentMarking', () => {
  it('turns concurrent marking off once, and the process goes on', () => {
    expect(inFreshProcess([])).toBe('[true,true]');
  });

  it("leaves a process alone whose command line set the GC's threading", () => {
    expect(inFreshProcess(['--single-threaded-gc'])).toBe('[false,false]');
    expect(inFreshProcess(['--concurrent-marking'])).toBe('[false,false]');
    expect(inFreshProcess(['--no-concurrent-marking'])).toBe('[false,false]');
  });
});
