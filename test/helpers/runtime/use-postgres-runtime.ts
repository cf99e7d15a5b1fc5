import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach } from 'vitest';
import { createPostgresStorage } from '../../../src/adapters/storage/postgres/create-postgres-storage.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
  type RuntimeHarnessOptions,
} from '../create-runtime-harness.js';

/**
 * A runtime harness on a real PostgreSQL at `url`, in a schema of its own per test, closed and dropped after
 * each test. Call inside a `describe`.
 */
export function usePostgresRuntime(
  url: string,
): (options?: Omit<RuntimeHarnessOptions, 'storage'>) => Promise<RuntimeHarness> {
  let harness: RuntimeHarness | undefined;
  let schema: string | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
    if (schema === undefined) return;
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
    schema = undefined;
  });
  return async (options = {}) => {
    const own = `troupe_test_${randomBytes(6).toString('hex')}`;
    schema = own;
    harness = await createRuntimeHarness({
      ...options,
      storage: () => createPostgresStorage({ connectionString: url, schema: own, poolSize: 4 }),
    });
    return harness;
  };
}
