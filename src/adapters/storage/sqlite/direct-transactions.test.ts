import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import type { DatabaseSchema } from '../sql/database-schema.js';
import { withStatementCache } from './cached-statements.js';
import { ConnectionGate } from './connection-gate.js';
import { createDirectTransactions } from './direct-transactions.js';
import { FifoSqliteDialect } from './fifo-sqlite-dialect.js';

interface Notes {
  notes: { id: number; text: string };
  parents: { id: number };
  children: { id: number; parent_id: number };
}

describe('createDirectTransactions', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** A real file shared by the server's connection (Kysely and direct transactions) and another writer. */
  function open(busyTimeoutMs = 5_000) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-direct-tx-'));
    const filename = path.join(dir, 'db.sqlite');
    const database = new Database(filename, { timeout: 0 });
    database.pragma('journal_mode = WAL');
    database.exec(`CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);
      CREATE TABLE parents (id INTEGER PRIMARY KEY);
      CREATE TABLE children (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parents(id) DEFERRABLE INITIALLY DEFERRED);`);
    database.pragma('foreign_keys = ON');
    const cached = withStatementCache(database);
    const gate = new ConnectionGate();
    const db = new Kysely<Notes>({
      dialect: new FifoSqliteDialect({ database: cached }, gate, busyTimeoutMs),
    });
    const other = new Database(filename, { timeout: 0 });
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    cleanups.push(() => db.destroy());
    cleanups.push(() => other.close());
    const transactions = createDirectTransactions(
      db as unknown as Kysely<DatabaseSchema>,
      cached,
      gate,
      busyTimeoutMs,
    );
    const texts = () => database.prepare('SELECT text FROM notes ORDER BY id').pluck().all();
    return { db, gate, other, transactions, texts };
  }

  const notes = (db: Kysely<DatabaseSchema>) => db as unknown as Kysely<Notes>;

  it('commits and rolls back, and refuses queries once the transaction has ended', async () => {
    const { gate, transactions, texts } = open();
    const kept = await transactions.begin();
    expect(gate.pending).toBe(1);
    await notes(kept.db).insertInto('notes').values({ id: 1, text: 'kept' }).execute();
    kept.commit();
    expect(kept.open).toBe(false);
    expect(gate.pending).toBe(0);
    await expect(notes(kept.db).selectFrom('notes').selectAll().execute()).rejects.toThrow(
      /already committed/,
    );
    expect(() => kept.commit()).toThrow(/already committed/);
    expect(() => kept.savepoint()).toThrow(/already committed/);

    const dropped = await transactions.begin();
    await notes(dropped.db).insertInto('notes').values({ id: 2, text: 'dropped' }).execute();
    dropped.rollback();
    await expect(
      notes(dropped.db).insertInto('notes').values({ id: 3, text: 'late' }).execute(),
    ).rejects.toThrow(/already rolled back/);
    expect(texts()).toEqual(['kept']);
    expect(gate.pending).toBe(0);
  });

  it('rolls back to a savepoint and keeps what came before it', async () => {
    const { transactions, texts } = open();
    const transaction = await transactions.begin();
    await notes(transaction.db).insertInto('notes').values({ id: 1, text: 'first' }).execute();
    transaction.savepoint();
    await notes(transaction.db).insertInto('notes').values({ id: 2, text: 'undone' }).execute();
    transaction.rollbackToSavepoint();
    transaction.releaseSavepoint();
    transaction.commit();
    expect(texts()).toEqual(['first']);
  });

  it('takes turns with Kysely in arrival order, never running inside its transaction', async () => {
    const { db, gate, transactions, texts } = open();
    const order: string[] = [];
    let finishKysely: () => void = () => undefined;
    const kyselyDone = db.transaction().execute(async (trx) => {
      await trx.insertInto('notes').values({ id: 1, text: 'kysely' }).execute();
      order.push('kysely inserted');
      await new Promise<void>((resolve) => (finishKysely = resolve));
      order.push('kysely commits');
    });
    await new Promise((resolve) => setImmediate(resolve));
    const direct = transactions.begin().then((transaction) => {
      order.push('direct began');
      return transaction;
    });
    // A query queued after the direct transaction waits for it too.
    const later = db
      .selectFrom('notes')
      .select('text')
      .execute()
      .then((rows) => {
        order.push(`later read ${rows.length}`);
      });
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['kysely inserted']);
    expect(gate.pending).toBe(3);
    finishKysely();
    await kyselyDone;
    const transaction = await direct;
    await notes(transaction.db).insertInto('notes').values({ id: 2, text: 'direct' }).execute();
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['kysely inserted', 'kysely commits', 'direct began']);
    transaction.commit();
    await later;
    expect(order.at(-1)).toBe('later read 2');
    expect(texts()).toEqual(['kysely', 'direct']);
    expect(gate.pending).toBe(0);
  });

  it('waits for another process’s writer, then gives up with storage_busy past the busy timeout', async () => {
    const { other, transactions, gate } = open(60);
    other.exec('BEGIN IMMEDIATE');
    await expect(transactions.begin()).rejects.toMatchObject({
      code: 'storage_busy',
      cause: { code: 'SQLITE_BUSY' },
    });
    expect(gate.pending).toBe(0);
    setTimeout(() => other.exec('COMMIT'), 20);
    const transaction = await transactions.begin();
    transaction.commit();
  });

  it('leaves no open transaction behind a COMMIT that failed', async () => {
    const { transactions, gate } = open();
    const failing = await transactions.begin();
    // A deferred foreign key is checked at COMMIT, which fails and leaves SQLite's transaction open.
    await notes(failing.db).insertInto('children').values({ id: 1, parent_id: 99 }).execute();
    expect(() => failing.commit()).toThrow(/FOREIGN KEY/);
    expect(failing.open).toBe(false);
    expect(gate.pending).toBe(0);
    const next = await transactions.begin();
    expect(await notes(next.db).selectFrom('children').selectAll().execute()).toEqual([]);
    next.commit();
  });
});
