import { describe, it } from 'vitest';

const NEEDS = {
  TROUPE_TEST_DATABASE_URL: 'needs a PostgreSQL server',
  TROUPE_TEST_REDIS_URL: 'needs a Redis server',
} as const;

/**
 * The URL of the shared server a gated suite runs against (`.ci/run` starts it and sets `variable`); when it is
 * not set, registers a skipped suite named `reason` and says why once per file (the default reporter shows only
 * a skip count), and returns undefined. A suite names the URL again inside its `if` block, so the functions it
 * declares there (hoisted, not narrowed) see a string.
 */
export function serviceUrlOrSkip(variable: keyof typeof NEEDS, reason: string): string | undefined {
  const url = process.env[variable];
  if (url !== undefined && url !== '') return url;
  console.warn(reason);
  describe.skip(reason, () => {
    it(NEEDS[variable], () => undefined);
  });
  return undefined;
}
