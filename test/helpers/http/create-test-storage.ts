import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSqliteStorage } from '../../../src/adapters/storage/sqlite/create-sqlite-storage.js';
import type { Clock } from '../../../src/core/clock.js';
import type { Storage } from '../../../src/core/ports/storage.js';

export interface TestStorage {
  /** A fresh temp directory holding the database; removed by `close`. */
  dir: string;
  filename: string;
  storage: Storage;
  close(): Promise<void>;
}

/**
 * Real SQLite on a temp file. Lives here rather than in `src/runtime` because the layer rules keep
 * runtime code (tests included) away from concrete adapters; service tests borrow it from the HTTP side.
 */
export async function createTestStorage(
  options: { clock?: Clock; busyTimeoutMs?: number } = {},
): Promise<TestStorage> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-test-'));
  const filename = path.join(dir, 'troupe.db');
  const storage = await createSqliteStorage({ filename, ...options });
  return {
    dir,
    filename,
    storage,
    async close() {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
