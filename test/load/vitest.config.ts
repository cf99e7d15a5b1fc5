import path from 'node:path';
import { defineConfig } from 'vitest/config';

/**
 * `npm run test:load`: the load and fault suites (minutes, not seconds), kept out of `npm test`; their files
 * end in `.load.ts` so the root config's `*.test.ts` pattern never picks them up. Smaller versions of both
 * run in `npm test` (test/e2e/load-smoke.e2e.test.ts, test/e2e/malformed-input.e2e.test.ts).
 */
export default defineConfig({
  root: path.resolve(import.meta.dirname, '../..'),
  test: {
    include: ['test/load/**/*.load.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    // One suite at a time: each one loads the machine on purpose.
    fileParallelism: false,
    maxWorkers: 1,
  },
});
