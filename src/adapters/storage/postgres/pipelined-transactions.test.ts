import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../../../test/helpers/close-after-each.js';
import { settleInOrder } from '../../../core/settle-in-order.js';
import type { DatabaseSchema } from '../sql/database-schema.js';
import { openWatchedPool, type Items } from '../../../../test/helpers/postgres-watched-pool.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';
import { CommittedDespiteFailure } from '../sql/committed-despite-failure.js';
import { pipelinedPostgresTransactions } from './pipelined-transactions.js';

/*
 * Statements a transaction starts together are in flight together (pipelined-transactions.ts), against a real
 * PostgreSQL when TROUPE_TEST_DATABASE_URL is set, on a pool of one watched connection.
 */
const SKIP_REASON =
  'PostgreSQL pipelined transactions: skipped because TROUPE_TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5433/postgres)';

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_DATABASE_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  describe('pipelined transactions on PostgreSQL', () => {
    const closeLater = closeAfterEach();

    async function open() {
      const watched = await openWatchedPool(url, closeLater);
      const source = pipelinedPostgresTransactions(
        watched.db as unknown as Kysely<DatabaseSchema>,
        watched.dialect,
      );
      const begin = async () => {
        const transaction = await source.begin();
        return { transaction, trx: transaction.db as unknown as Kysely<Items> };
      };
      return { ...watched, begin };
    }

    it('writes the statements started together before the first answer, and runs them in that order', async () => {
      const { begin, traffic, labels } = await open();
      const { transaction, trx } = await begin();
      const [, , renamed] = await settleInOrder([
        trx.insertInto('items').values({ id: 2, label: 'two' }).execute(),
        trx.insertInto('items').values({ id: 3, label: 'three' }).execute(),
        // Sees the insert started before it: the server runs them in the order they were written.
        trx.updateTable('items').set({ label: 'deux' }).where('id', '=', 2).executeTakeFirst(),
      ]);
      expect(renamed.numUpdatedRows).toBe(1n);
      const firstAnswer = traffic.indexOf('<');
      const written = traffic.slice(0, firstAnswer).join('\n');
      expect(written).toMatch(
        /begin[\s\S]*insert into "items"[\s\S]*insert into "items"[\s\S]*update "items"/,
      );
      await transaction.commit();
      expect(await labels()).toEqual([1, 2, 3]);
    });

    it('sends the statements started in one turn in one write, and a later one in a write of its own', async () => {
      const { begin, flushes } = await open();
      const { transaction, trx } = await begin();
      await settleInOrder([
        trx.insertInto('items').values({ id: 2, label: 'two' }).execute(),
        trx.insertInto('items').values({ id: 3, label: 'three' }).execute(),
        trx.updateTable('items').set({ label: 'deux' }).where('id', '=', 2).executeTakeFirst(),
      ]);
      await trx.deleteFrom('items').where('id', '=', 3).execute();
      await transaction.commit();
      const statements = (flush: string) =>
        flush.match(/begin|insert into|update "items"|delete from|commit/g);
      expect(flushes.map(statements)).toEqual([
        ['begin', 'insert into', 'insert into', 'update "items"'],
        ['delete from'],
        ['commit'],
      ]);
    });

    it('fails with the statement that failed, not the ones its failure aborted, and commits nothing', async () => {
      const { begin, labels, db } = await open();
      const { transaction, trx } = await begin();
      const started = settleInOrder([
        trx.insertInto('items').values({ id: 2, label: 'two' }).execute(),
        trx.insertInto('items').values({ id: 1, label: 'again' }).execute(),
        trx.insertInto('items').values({ id: 3, label: 'three' }).execute(),
      ]);
      await expect(started).rejects.toMatchObject({ code: '23505' });
      await transaction.rollback();
      expect(await labels()).toEqual([1]);
      // The connection went back clean.
      await db.insertInto('items').values({ id: 4, label: 'four' }).execute();
      expect(await labels()).toEqual([1, 4]);
    });

    it('refuses a statement once the transaction ended, so a kept one cannot run in the next', async () => {
      const { begin, labels, db } = await open();
      const { transaction, trx } = await begin();
      await trx.insertInto('items').values({ id: 2, label: 'two' }).execute();
      await transaction.commit();
      expect(transaction.open).toBe(false);
      await expect(trx.insertInto('items').values({ id: 3, label: 'late' }).execute()).rejects.toThrow(
        'This transaction has ended',
      );
      await expect(transaction.commit()).rejects.toThrow('This transaction has ended');
      expect(await labels()).toEqual([1, 2]);
      expect((await db.selectFrom('items').select('id').execute()).length).toBe(2);
    });

    describe('commitBehind', () => {
      it('writes the COMMIT in the same write as the last statements, before any answer', async () => {
        const { begin, flushes, labels } = await open();
        const { transaction, trx } = await begin();
        await trx.insertInto('items').values({ id: 2, label: 'two' }).execute();
        const last = [
          trx.insertInto('items').values({ id: 3, label: 'three' }).execute(),
          trx.updateTable('items').set({ label: 'deux' }).where('id', '=', 2).executeTakeFirst(),
        ];
        transaction.commitBehind?.(last);
        await settleInOrder(last);
        await transaction.commit();
        const statements = (flush: string) => flush.match(/begin|insert into|update "items"|commit/g);
        expect(flushes.map(statements)).toEqual([
          ['begin', 'insert into'],
          ['insert into', 'update "items"', 'commit'],
        ]);
        expect(await labels()).toEqual([1, 2, 3]);
        expect(transaction.open).toBe(false);
      });

      it('commits nothing when one of the last statements fails on the server', async () => {
        const { begin, labels, db } = await open();
        const { transaction, trx } = await begin();
        await trx.insertInto('items').values({ id: 2, label: 'two' }).execute();
        const last = [
          trx.insertInto('items').values({ id: 3, label: 'three' }).execute(),
          trx.insertInto('items').values({ id: 1, label: 'again' }).execute(),
        ];
        transaction.commitBehind?.(last);
        await expect(settleInOrder(last)).rejects.toMatchObject({ code: '23505' });
        // What the transaction wrapper does with the work's error: nothing is reported over it.
        await transaction.rollback();
        expect(await labels()).toEqual([1]);
        await db.insertInto('items').values({ id: 4, label: 'four' }).execute();
        expect(await labels()).toEqual([1, 4]);
      });

      it('sends no COMMIT when a last statement failed in code before the turn ended', async () => {
        const { begin, labels, traffic } = await open();
        const { transaction, trx } = await begin();
        const last = [
          trx.insertInto('items').values({ id: 2, label: 'two' }).execute(),
          Promise.reject(new Error('refused by a check')),
        ];
        transaction.commitBehind?.(last);
        await expect(settleInOrder(last)).rejects.toThrow('refused by a check');
        await transaction.rollback();
        expect(traffic.join('\n')).not.toMatch(/\bcommit\b/);
        expect(await labels()).toEqual([1]);
      });

      it('refuses a statement started after the COMMIT was written', async () => {
        const { begin, labels } = await open();
        const { transaction, trx } = await begin();
        const last = [trx.insertInto('items').values({ id: 2, label: 'two' }).execute()];
        transaction.commitBehind?.(last);
        await settleInOrder(last);
        await expect(
          trx.insertInto('items').values({ id: 3, label: 'late' }).execute(),
        ).rejects.toMatchObject({ code: 'internal' });
        await transaction.commit();
        expect(await labels()).toEqual([1, 2]);
      });

      it('reports a work that failed in code after its COMMIT committed, instead of its own error', async () => {
        const { begin, labels } = await open();
        const { transaction, trx } = await begin();
        const last = [trx.insertInto('items').values({ id: 2, label: 'two' }).execute()];
        transaction.commitBehind?.(last);
        await settleInOrder(last);
        await expect(transaction.rollback()).rejects.toBeInstanceOf(CommittedDespiteFailure);
        expect(await labels()).toEqual([1, 2]);
      });
    });
  });
}
