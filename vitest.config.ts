import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Prints one line per test group that skips on this machine, and why.
    globalSetup: ['test/report-skips.ts'],
    // tfjs' console advice stays out of the run's output (see the file).
    setupFiles: ['test/quiet-tfjs.ts'],
    // The encoder loads 28 MB of weights per worker; two workers match the two cores.
    pool: 'forks',
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
