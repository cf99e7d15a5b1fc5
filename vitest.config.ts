import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Suites open real SQLite files, sockets and child processes: keep parallelism modest on 2 cores.
    maxWorkers: 2,
  },
});
