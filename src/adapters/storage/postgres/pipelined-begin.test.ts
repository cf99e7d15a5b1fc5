import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../../../test/helpers/close-after-each.js';
import { isTroupeError } from '../../../core/errors.js';
import { openWatchedPool } from '../../../../test/helpers/postgres-watched-pool.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';

/*
 * A transaction's BEGIN leaves in one write with its first statement (postgres-driver.ts), against a real
 * PostgreSQL when TROUPE_TEST_DATABASE_URL is set. Each test has a schema of its own and a pool of one
 * pipelining connection, as createPostgresStorage configures it, so the socket it watches is the one its
 * statements ran on.
 */
const SKIP_REASON =
  'PostgreSQL pipelined BEGIN: skipped because TROUPE_TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5433/postgres)';

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_DATABASE_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  describe('pipelined BEGIN on PostgreSQL', () => {
    const closeLater = closeAfterEach();

    const open = () => openWatchedPool(url, closeLater);

    it("sends the BEGIN in the same write as the transaction's first statement", async () => {
      const { db, flushes, labels } = await open();
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 2, label: 'two' }).execute();
        await trx.insertInto('items').values({ id: 3, label: 'three' }).execute();
      });
      expect(flushes[0]).toMatch(/begin[\s\S]*insert into "items"/);
      expect(flushes.filter((flush) => /\bbegin\b/.test(flush))).toHaveLength(1);
      expect(flushes.at(-1)).toMatch(/commit/);
      expect(await labels()).toEqual([1, 2, 3]);
    });

    it('keeps the first statement inside the transaction: a later failure rolls it back', async () => {
      const { db, labels } = await open();
      const failed = db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 2, label: 'two' }).execute();
        await trx.insertInto('items').values({ id: 1, label: 'again' }).execute();
      });
      await expect(failed).rejects.toMatchObject({ code: '23505' });
      expect(await labels()).toEqual([1]);
      // The connection went back clean: the next transaction commits.
      await db
        .transaction()
        .execute((trx) => trx.insertInto('items').values({ id: 4, label: 'four' }).execute());
      expect(await labels()).toEqual([1, 4]);
    });

    it('sends nothing for a transaction that ran no statement, whether it commits or rolls back', async () => {
      const { db, flushes } = await open();
      await db.transaction().execute(() => Promise.resolve());
      await expect(
        db.transaction().execute(() => Promise.reject(new Error('changed its mind'))),
      ).rejects.toThrow('changed its mind');
      expect(flushes).toEqual([]);
      expect((await sql<{ one: number }>`select 1 as one`.execute(db)).rows).toEqual([{ one: 1 }]);
    });

    it('fails a BEGIN whose connection died as storage_unavailable, wrote nothing, and reconnects', async () => {
      const { db, admin, application, died, labels } = await open();
      const failed = await db
        .transaction()
        .execute(async (trx) => {
          // The connection dies between the (unsent) BEGIN and the first statement.
          await admin.query(
            'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
            [application],
          );
          await died;
          await trx.insertInto('items').values({ id: 2, label: 'two' }).execute();
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(isTroupeError(failed, 'storage_unavailable')).toBe(true);
      expect(await labels()).toEqual([1]);
      await db
        .transaction()
        .execute((trx) => trx.insertInto('items').values({ id: 5, label: 'five' }).execute());
      expect(await labels()).toEqual([1, 5]);
    });
  });
}
