import { describe, expect, it } from 'vitest';
import { useTestStorage } from '../../../../test/helpers/use-test-storage.js';
import type { Storage } from '../../../core/ports/storage.js';

/*
 * When an idle SQLite group commit starts: after the event-loop turn (`gather`, run starts arriving from many
 * sockets) or at once (a run's own commits, which mostly come alone). Either way, works that arrive while the
 * group's transaction begins join it.
 */
describe('shared-commit transactions on SQLite: when a group starts', () => {
  const openTestStorage = useTestStorage();
  const open = async (): Promise<Storage> => (await openTestStorage()).storage;

  /** Whether the work began after a setImmediate queued just before it was submitted. */
  async function startedAfterTurn(storage: Storage, gather: boolean | undefined): Promise<boolean> {
    let turnEnded = false;
    setImmediate(() => (turnEnded = true));
    return storage.sharedCommitTransaction(
      () => Promise.resolve(turnEnded),
      gather === undefined ? undefined : { gather },
    );
  }

  it('waits for the end of the turn by default, and not with gather: false', async () => {
    const storage = await open();
    expect(await startedAfterTurn(storage, undefined)).toBe(true);
    expect(await startedAfterTurn(storage, true)).toBe(true);
    expect(await startedAfterTurn(storage, false)).toBe(false);
  });

  it('puts works submitted while the transaction begins into the same transaction, each still atomic', async () => {
    const storage = await open();
    const seen: Storage[] = [];
    const results = await Promise.allSettled(
      ['ann', 'ben', 'cy'].map((name) =>
        storage.sharedCommitTransaction(
          async (tx) => {
            seen.push(tx);
            await tx.users.create({ name, role: 'member' });
            if (name === 'ben') throw new Error('ben changes his mind');
          },
          { gather: false },
        ),
      ),
    );
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(new Set(seen).size).toBe(1);
    expect((await storage.users.list()).map((user) => user.name).sort()).toEqual(['ann', 'cy']);
  });
});
