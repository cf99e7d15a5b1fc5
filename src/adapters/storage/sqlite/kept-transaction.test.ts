import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Storage } from '../../../core/ports/storage.js';
import { createSqliteStorage } from './create-sqlite-storage.js';

describe('a transaction-bound storage kept past its transaction', () => {
  const opened: { storage: Storage; dir: string }[] = [];
  afterEach(async () => {
    for (const { storage, dir } of opened.splice(0)) {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  async function open(): Promise<Storage> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-kept-tx-'));
    const storage = await createSqliteStorage({ filename: path.join(dir, 'db.sqlite') });
    opened.push({ storage, dir });
    return storage;
  }

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
