/**
 * vitest globalSetup: before any test runs, one line on stderr per test group that will skip
 * on this machine and why (see test/prerequisites.ts); nothing when every group runs.
 */
import { prerequisites } from './prerequisites.js';

export default function reportSkips(): void {
  for (const p of prerequisites()) {
    if (!p.met) process.stderr.write(`SKIPPING ${p.group}: ${p.why}\n`);
  }
}
