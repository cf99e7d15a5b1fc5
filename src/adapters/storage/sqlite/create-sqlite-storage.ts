import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { DatabaseConnection, Driver, QueryCompiler, TransactionSettings } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import type { Storage } from '../../../core/ports/storage.js';
import { createSqlStorage } from '../sql/create-sql-storage.js';
import type { DatabaseSchema } from '../sql/database-schema.js';
import { migrateToLatest } from '../sql/migrations.js';
import { withStatementCache } from './cached-statements.js';
import { startWalCheckpointer } from './wal-checkpointer.js';
import { sqliteSqlDialect } from '../sql/sql-dialect.js';

export interface SqliteStorageOptions {
  /** Path of the database file (its directory is created), or `:memory:` for a throwaway database. */
  filename: string;
  clock?: Clock;
  /** How long a write waits for another process's lock before failing; default 5 s. */
  busyTimeoutMs?: number;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5_000;
/**
 * Hands the single connection to waiters in arrival order. Kysely's own mutex wakes every waiter on each
 * release (they race and all but one wait again), which costs O(waiters) per query under a burst of
 * concurrent writes such as many runs streaming events at once.
 */
class FifoDriver implements Driver {
  #tail: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;

  constructor(private readonly inner: Driver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const previous = this.#tail;
    let release: () => void = () => undefined;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      const connection = await this.inner.acquireConnection();
      this.#release = release;
      return connection;
    } catch (error) {
      release();
      throw error;
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    try {
      await this.inner.releaseConnection(connection);
    } finally {
      release?.();
    }
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

class FifoSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    return new FifoDriver(super.createDriver());
  }
}

function openDatabase(filename: string, busyTimeoutMs: number): Database.Database {
  const database = new Database(filename);
  try {
    // WAL lets readers (another process, a backup) work while the server writes; with WAL, NORMAL
    // sync loses at most the last transactions on power loss, never consistency.
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    database.pragma(`busy_timeout = ${Math.max(0, Math.trunc(busyTimeoutMs))}`);
    return database;
  } catch (error) {
    database.close();
    throw error;
  }
}

/** The embedded default store: one SQLite file, migrated to the latest schema on open. */
export async function createSqliteStorage(options: SqliteStorageOptions): Promise<Storage> {
  const inMemory = options.filename === ':memory:' || options.filename === '';
  if (!inMemory) await mkdir(path.dirname(path.resolve(options.filename)), { recursive: true });
  const database = openDatabase(options.filename, options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS);
  const db = new Kysely<DatabaseSchema>({
    dialect: new FifoSqliteDialect({ database: withStatementCache(database) }),
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
  });
}
