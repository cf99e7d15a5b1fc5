import { sql } from 'kysely';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from './database-schema.js';
import { constraintBySqliteColumnList, isUniqueConstraintName } from './unique-constraints.js';
import type { UniqueConstraintName } from './unique-constraints.js';

/** What the shared SQL storage must know about an engine beyond what Kysely hides. */
export interface SqlDialect {
  readonly name: 'sqlite' | 'postgres';
  /**
   * The schema key a driver error reports as violated, or undefined when the error is not a unique
   * violation (or names a key this schema does not have).
   */
  uniqueViolation(error: unknown): UniqueConstraintName | undefined;
  /**
   * Whether a driver error is a statement's own guard failing it: an `orFail` compare-and-set that matched no
   * row (sql-run-hot-queries.ts). Only engines that fail such a statement on the server report one.
   */
  guardFailed(error: unknown): boolean;
  /**
   * Holds, until the current transaction ends, a lock that serialises the writers of one logical key (a
   * run's event sequence, a thread's message sequence, "the default agent"). Absent on engines that run
   * one write at a time anyway.
   */
  readonly lockKey?: (db: Kysely<DatabaseSchema>, key: string) => Promise<void>;
}

function field(error: unknown, key: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[key] : undefined;
}

const SQLITE_UNIQUE_CODES = new Set(['SQLITE_CONSTRAINT_UNIQUE', 'SQLITE_CONSTRAINT_PRIMARYKEY']);
const SQLITE_UNIQUE_MESSAGE = /^UNIQUE constraint failed: (.+)$/;
const SQLITE_INDEX_NAME = /^index '([^']+)'$/;

/** better-sqlite3: `code` is the extended result code; the message lists the key's columns (or its index). */
export const sqliteSqlDialect: SqlDialect = {
  name: 'sqlite',
  uniqueViolation(error) {
    const code = field(error, 'code');
    const message = field(error, 'message');
    if (typeof code !== 'string' || !SQLITE_UNIQUE_CODES.has(code) || typeof message !== 'string')
      return undefined;
    const described = SQLITE_UNIQUE_MESSAGE.exec(message)?.[1];
    if (described === undefined) return undefined;
    // Indexes on expressions are reported by name rather than by columns.
    const indexName = SQLITE_INDEX_NAME.exec(described)?.[1];
    if (indexName !== undefined) return isUniqueConstraintName(indexName) ? indexName : undefined;
    return constraintBySqliteColumnList(described);
  },
  // An `orFail` statement is checked in code here: one writer at a time, and no COMMIT is sent ahead of it.
  guardFailed: () => false,
};

/**
 * SQLSTATE 22012 (division_by_zero): an `orFail` update's guard divides by the number of rows it moved, and
 * nothing else in that statement divides.
 */
const POSTGRES_GUARD_FAILED = '22012';

/** node-postgres: SQLSTATE 23505 (unique_violation) with the violated index in `constraint`. */
export const postgresSqlDialect: SqlDialect = {
  name: 'postgres',
  uniqueViolation(error) {
    if (field(error, 'code') !== '23505') return undefined;
    const constraint = field(error, 'constraint');
    return typeof constraint === 'string' && isUniqueConstraintName(constraint) ? constraint : undefined;
  },
  guardFailed: (error) => field(error, 'code') === POSTGRES_GUARD_FAILED,
  // An advisory lock rather than a row lock on `runs`, so appends never wait for a run's own updates.
  async lockKey(db, key) {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(db);
  },
};
