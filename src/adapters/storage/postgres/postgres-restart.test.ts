import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTroupeError } from '../../../core/errors.js';
import type { Storage } from '../../../core/ports/storage.js';
import { startThrowawayPostgres } from '../../../../test/helpers/services/throwaway-postgres.js';
import {
  serviceBinariesOrSkip,
  useThrowawayServer,
} from '../../../../test/helpers/services/use-throwaway-server.js';
import { createPostgresStorage } from './create-postgres-storage.js';

/*
 * A PostgreSQL server of the test's own (initdb in a temp dir, as `.ci/run` starts one), restarted with
 * `pg_ctl restart -m fast` while the pool holds connections: the shared server is never touched. Skipped, with
 * the reason, when the server binaries are not installed.
 */
const binaries = serviceBinariesOrSkip('PostgreSQL restart');

function expectUnavailable(error: unknown): void {
  expect(isTroupeError(error, 'storage_unavailable'), String(error)).toBe(true);
  expect((error as { details?: Record<string, unknown> }).details?.retry_after_seconds).toBeGreaterThan(0);
}

if (binaries) {
  describe('PostgreSQL storage across a server restart', () => {
    const server = useThrowawayServer((dir, teardown) =>
      startThrowawayPostgres(binaries.pgBin, dir, teardown),
    );
    let storage: Storage;
    const reported: unknown[] = [];

    beforeAll(async () => {
      storage = await createPostgresStorage({
        connectionString: server().url,
        poolSize: 4,
        onError: (error) => reported.push(error),
      });
    }, 60_000);

    afterAll(async () => {
      await storage?.close().catch(() => undefined);
    }, 30_000);

    it('survives a fast restart: a connection in use fails its transaction with storage_unavailable, nothing of it is kept, and the pool reconnects', async () => {
      const before = await storage.users.create({ name: 'before', role: 'member' });
      let restarted: () => void = () => undefined;
      const afterRestart = new Promise<void>((resolve) => (restarted = resolve));
      let held: () => void = () => undefined;
      const holding = new Promise<void>((resolve) => (held = resolve));
      // A transaction holds a checked-out connection (with its first write done) while the server restarts:
      // node-postgres emits 'error' on that client, which used to have no listener and crash the process.
      const interrupted = storage.transaction(async (tx) => {
        await tx.users.create({ name: 'half-written', role: 'member' });
        held();
        await afterRestart;
        return tx.users.create({ name: 'never', role: 'member' });
      });
      const outcome = interrupted.then(
        () => undefined,
        (error: unknown) => error,
      );
      await holding;
      await server().restartFast();
      restarted();
      expectUnavailable(await outcome);
      expect(reported.length).toBeGreaterThan(0);

      // The pool drops the broken clients and opens new ones: the next statements just work.
      expect(await storage.users.get(before.id)).toEqual(before);
      expect(await storage.users.getByName('half-written')).toBeUndefined();
      expect(await storage.users.getByName('never')).toBeUndefined();
      const after = await storage.users.create({ name: 'after', role: 'member' });
      expect(await storage.users.get(after.id)).toEqual(after);
    }, 60_000);

    it('answers storage_unavailable while the server is down, and works again once it is back', async () => {
      let failures = 0;
      let stop = false;
      // Statements sent all through the restart: each either succeeds or fails as storage_unavailable.
      const probing = (async () => {
        while (!stop) {
          try {
            await storage.users.getByName('before');
          } catch (error) {
            expectUnavailable(error);
            failures += 1;
          }
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })();
      await server().restartFast();
      stop = true;
      await probing;
      expect(failures).toBeGreaterThan(0);
      expect((await storage.users.getByName('before'))?.name).toBe('before');
    }, 60_000);
  });
}
