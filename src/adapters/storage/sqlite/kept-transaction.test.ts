import { describe, expect, it } from 'vitest';
import { useTestStorage } from '../../../../test/helpers/use-test-storage.js';
import type { Storage } from '../../../core/ports/storage.js';

describe('a transaction-bound storage kept past its transaction', () => {
  const openTestStorage = useTestStorage();
  const open = async (): Promise<Storage> => (await openTestStorage()).storage;

  // Prepared reads (runs.get) take the direct path while their transaction runs; once it is over they must
  // fail as Kysely fails any statement on a finished transaction, never run inside whatever holds the
  // connection next.
  it('refuses prepared statements after a commit, for a plain and a shared-commit transaction', async () => {
    const storage = await open();
    const kept = await storage.transaction((tx) => Promise.resolve(tx));
    await expect(kept.runs.get('run_missing')).rejects.toThrow(/already committed/);
    const keptShared = await storage.sharedCommitTransaction((tx) => Promise.resolve(tx));
    await expect(keptShared.runs.get('run_missing')).rejects.toThrow(/already committed/);
    // The storage itself is unaffected.
    expect(await storage.runs.get('run_missing')).toBeUndefined();
  });
});
