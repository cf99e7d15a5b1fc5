import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'web/src/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Suites open real SQLite files, sockets and child processes: keep parallelism modest on 2 cores.
    maxWorkers: 2,
    // Every JSON success body is checked against its route's documented schema (processes the suites
    // spawn inherit it too): the OpenAPI document cannot drift from what the handlers send.
    env: { TROUPE_CHECK_RESPONSES: '1' },
  },
});
