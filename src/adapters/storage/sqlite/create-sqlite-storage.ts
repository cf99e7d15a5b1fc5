import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import type { Storage } from '../../../core/ports/storage.js';
import { createSqlStorage } from '../sql/create-sql-storage.js';
import type { DatabaseSchema } from '../sql/database-schema.js';
import { migrateToLatest } from '../sql/migrations.js';
import { withStatementCache } from './cached-statements.js';
import { startWalCheckpointer } from './wal-checkpointer.js';
import { createDirectQueryRunner } from './direct-query-runner.js';
import { ConnectionGate } from './connection-gate.js';
import { createDirectTransactions } from './direct-transactions.js';
import { FifoSqliteDialect } from './fifo-sqlite-dialect.js';
import { sqliteSqlDialect } from '../sql/sql-dialect.js';

export interface SqliteStorageOptions {
  /** Path of the database file (its directory is created), or `:memory:` for a throwaway database. */
  filename: string;
  clock?: Clock;
  /** How long a write waits for another process's lock before failing; default 5 s. */
  busyTimeoutMs?: number;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
function openDatabase(filename: string, busyTimeoutMs: number): Database.Database {
  const database = new Database(filename);
  try {
    // WAL lets readers (another process, a backup) work while the server writes; with WAL, NORMAL
    // sync loses at most the last transactions on power loss, never consistency.
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    // After the WAL checkpointer restarts the log, the next commit cuts the file back to this size.
    database.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    database.pragma(`busy_timeout = ${busyTimeoutMs}`);
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

/** The embedded default store: one SQLite file, migrated to the latest schema on open. */
export async function createSqliteStorage(options: SqliteStorageOptions): Promise<Storage> {
  const inMemory = options.filename === ':memory:' || options.filename === '';
  if (!inMemory) {
    await mkdir(path.dirname(path.resolve(options.filename)), { recursive: true, mode: 0o700 });
    // Created 0600 before SQLite opens it (an existing file is left as it is): its -wal and -shm files take
    // the database file's mode, so no other host user can read any of them.
    await (await open(options.filename, 'a', 0o600)).close();
  }
  const busyTimeoutMs = Math.max(0, Math.trunc(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS));
  const database = openDatabase(options.filename, busyTimeoutMs);
  const cached = withStatementCache(database);
  const gate = new ConnectionGate();
  const db = new Kysely<DatabaseSchema>({
    dialect: new FifoSqliteDialect({ database: cached }, gate, busyTimeoutMs),
  });
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const checkpointer = inMemory ? undefined : startWalCheckpointer(database, options.filename);
  return createSqlStorage(db, sqliteSqlDialect, {
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    ...(checkpointer === undefined ? {} : { beforeClose: () => checkpointer.stop() }),
    direct: createDirectQueryRunner(cached, gate),
    transactions: createDirectTransactions(db, cached, gate, busyTimeoutMs),
  });
}
