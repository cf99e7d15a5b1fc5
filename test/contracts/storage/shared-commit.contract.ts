import { describe, expect, it } from 'vitest';
import type { Storage } from '../../../src/core/ports/storage.js';

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
  });
}
