import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, sql, type Generated } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionGate } from './connection-gate.js';
import { FifoSqliteDialect } from './fifo-sqlite-dialect.js';

interface Schema {
  notes: { id: Generated<number>; text: string };
}

describe('FifoSqliteDialect BEGIN', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /**
   * Two connections to one real file. The server's connection has no SQLite busy handler (timeout 0), so
   * every BEGIN that meets the other writer fails at once with SQLITE_BUSY, the failure that SQLite's own
   * handler does not always absorb; the dialect's retry is what is tested.
   */
  function open(busyTimeoutMs: number): { db: Kysely<Schema>; other: Database.Database } {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-fifo-'));
    const filename = path.join(dir, 'db.sqlite');
    const database = new Database(filename, { timeout: 0 });
    database.pragma('journal_mode = WAL');
    database.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)');
    const other = new Database(filename, { timeout: 0 });
    const db = new Kysely<Schema>({
      dialect: new FifoSqliteDialect({ database }, new ConnectionGate(), busyTimeoutMs),
    });
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    cleanups.push(() => db.destroy());
    cleanups.push(() => void (other.inTransaction && other.exec('rollback')));
    return { db, other };
  }

  it('waits for another writer without blocking the event loop, then commits', async () => {
    const { db, other } = open(5_000);
    other.exec('begin immediate');
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 5);
    setTimeout(() => other.exec('commit'), 150);
    await db
      .transaction()
      .execute((tx) => tx.insertInto('notes').values({ text: 'after the other' }).execute());
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(5);
    expect(await sql<{ n: number }>`SELECT COUNT(*) AS n FROM notes`.execute(db)).toMatchObject({
      rows: [{ n: 1 }],
    });
  });

  it('gives up with storage_busy once the busy timeout has passed, and holds nothing afterwards', async () => {
    const { db, other } = open(60);
    other.exec('begin immediate');
    const failed = db
      .transaction()
      .execute((tx) => tx.insertInto('notes').values({ text: 'never' }).execute());
    await expect(failed).rejects.toMatchObject({ code: 'storage_busy', cause: { code: 'SQLITE_BUSY' } });
    other.exec('commit');
    await db.transaction().execute((tx) => tx.insertInto('notes').values({ text: 'now' }).execute());
    const { rows } = await sql<{ text: string }>`SELECT text FROM notes`.execute(db);
    expect(rows).toEqual([{ text: 'now' }]);
  });
});
