import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', '.data/**'],
    globalSetup: ['test/support/services.ts'],
    pool: 'forks',
    // two test files at a time: most of the slow ones wait on processes, clocks and restarts,
    // not on the CPU (vitest's default on 2 cores is one at a time)
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
