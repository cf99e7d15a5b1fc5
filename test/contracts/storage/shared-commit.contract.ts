import { describe, expect, it } from 'vitest';
import type { Storage } from '../../../src/core/ports/storage.js';
import { RunExpectationMissed } from '../../../src/core/runs/run-expectation-missed.js';
import { settleInOrder } from '../../../src/core/settle-in-order.js';
import { seedOneRun } from './seed-one-run.js';

/*
 * `sharedCommitTransaction`, part of the storage contract (called from storage.contract.ts). Works submitted
 * together may share one COMMIT (SQLite) or each have their own (PostgreSQL); either way each is atomic on
 * its own and resolves only once its writes are committed.
 */
export function describeSharedCommitContract(store: () => Storage): void {
  describe('shared-commit transactions', () => {
    it('keeps each work atomic on its own when several are submitted together', async () => {
      const storage = store();
      const results = await Promise.allSettled([
        storage.sharedCommitTransaction(
          async (tx) => (await tx.users.create({ name: 'ann', role: 'member' })).id,
        ),
        storage.sharedCommitTransaction(async (tx) => {
          await tx.users.create({ name: 'ben', role: 'member' });
          throw new Error('ben changes his mind');
        }),
        storage.sharedCommitTransaction(
          async (tx) => (await tx.users.create({ name: 'cy', role: 'member' })).id,
        ),
        // A constraint failure inside one work leaves the others alone too.
        storage.sharedCommitTransaction(async (tx) => {
          await tx.users.create({ name: 'dee', role: 'member' });
          await tx.users.create({ name: 'ann', role: 'member' });
        }),
      ]);
      expect(results.map((result) => result.status)).toEqual([
        'fulfilled',
        'rejected',
        'fulfilled',
        'rejected',
      ]);
      const [ann, ben] = results;
      expect(ben).toMatchObject({ reason: new Error('ben changes his mind') });
      // Resolved means committed: another reader sees it at once.
      if (ann?.status === 'fulfilled') expect((await storage.users.get(ann.value))?.name).toBe('ann');
      expect((await storage.users.list()).map((user) => user.name).sort()).toEqual(['ann', 'cy']);
    });

    it('joins the outer transaction when nested', async () => {
      const storage = store();
      await expect(
        storage.transaction(async (outer) => {
          await outer.sharedCommitTransaction((inner) => inner.users.create({ name: 'eve', role: 'member' }));
          expect(await outer.users.getByName('eve')).toBeDefined();
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect(await storage.users.getByName('eve')).toBeUndefined();
    });

    describe('last statements with the COMMIT behind them (commitBehind)', () => {
      it('commits them when the database refuses nothing', async () => {
        const storage = store();
        const run = await seedOneRun(storage);
        const moved = await storage.sharedCommitTransaction(async (tx) => {
          const update = tx.runs.update(
            run.id,
            { status: ['pending'] },
            { status: 'cancelled' },
            { orFail: true },
          );
          const user = tx.users.create({ name: 'zed', role: 'member' });
          tx.commitBehind([update, user]);
          return (await update)?.status;
        });
        expect(moved).toBe('cancelled');
        expect((await storage.runs.get(run.id))?.status).toBe('cancelled');
        expect(await storage.users.getByName('zed')).toBeDefined();
      });

      it('commits none of them when a compare-and-set with orFail misses', async () => {
        const storage = store();
        const run = await seedOneRun(storage);
        await expect(
          storage.sharedCommitTransaction(async (tx) => {
            const user = tx.users.create({ name: 'zed', role: 'member' });
            const update = tx.runs.update(
              run.id,
              { status: ['running'] },
              { status: 'completed' },
              { orFail: true },
            );
            tx.commitBehind([user, update]);
            await settleInOrder([user, update]);
          }),
        ).rejects.toBeInstanceOf(RunExpectationMissed);
        expect((await storage.runs.get(run.id))?.status).toBe('pending');
        expect(await storage.users.getByName('zed')).toBeUndefined();
        // The storage is usable after.
        await storage.users.create({ name: 'amy', role: 'member' });
      });

      it('leaves the COMMIT to the work that opened the transaction: one that joined it commits nothing early', async () => {
        const storage = store();
        await expect(
          storage.transaction(async (outer) => {
            await outer.sharedCommitTransaction(async (inner) => {
              const user = inner.users.create({ name: 'ivy', role: 'member' });
              inner.commitBehind([user]);
              await user;
            });
            // Refused as late had the joined work's COMMIT left.
            await outer.users.create({ name: 'jon', role: 'member' });
            throw new Error('undo');
          }),
        ).rejects.toThrow('undo');
        expect(await storage.users.getByName('ivy')).toBeUndefined();
        expect(await storage.users.getByName('jon')).toBeUndefined();
      });

      it('commits none of them when one fails in code before anything answered', async () => {
        const storage = store();
        const run = await seedOneRun(storage);
        await expect(
          storage.sharedCommitTransaction(async (tx) => {
            const update = tx.runs.update(run.id, { status: ['pending'] }, { status: 'cancelled' });
            const check = Promise.reject(new Error('over budget'));
            tx.commitBehind([update, check]);
            await settleInOrder([update, check]);
          }),
        ).rejects.toThrow('over budget');
        expect((await storage.runs.get(run.id))?.status).toBe('pending');
      });
    });
  });
}
