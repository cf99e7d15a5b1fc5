import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Clock } from '../../../core/clock.js';
import { isoNow } from '../../../core/clock.js';
import { TroupeError } from '../../../core/errors.js';
import type { DatabaseSchema, SqlBoolean } from './database-schema.js';
import type { SqlDialect } from './sql-dialect.js';
import type { UniqueConstraintName } from './unique-constraints.js';

/** What every repository works with: the executor (the database or the open transaction) and its engine. */
export interface SqlContext {
  readonly db: Kysely<DatabaseSchema>;
  readonly dialect: SqlDialect;
  readonly clock: Clock;
  readonly inTransaction: boolean;
  /** The engine's fast path for prepared queries, where it has one (SQLite). */
  readonly direct?: DirectQueryRunner | undefined;
  /** The engine's own transactions, where it runs them off Kysely's machinery (SQLite, PostgreSQL). */
  readonly transactions?: TransactionSource | undefined;
  /** In a transaction that can write its COMMIT behind its last statements (`Storage.commitBehind`). */
  readonly commitBehind?: ((statements: readonly PromiseLike<unknown>[]) => void) | undefined;
}

/**
 * One open transaction, with the one savepoint a group commit needs. Commit and rollback end it; an engine's
 * direct transaction does all of this synchronously, Kysely's asynchronously.
 */
export interface OpenTransaction {
  /** Runs queries inside this transaction; any query once it has ended fails. */
  readonly db: Kysely<DatabaseSchema>;
  /** False once committed or rolled back. */
  readonly open: boolean;
  savepoint(): void | Promise<void>;
  releaseSavepoint(): void | Promise<void>;
  rollbackToSavepoint(): void | Promise<void>;
  commit(): void | Promise<void>;
  rollback(): void | Promise<void>;
  /** Where the engine can write its COMMIT behind the last statements (`Storage.commitBehind`). */
  commitBehind?(statements: readonly PromiseLike<unknown>[]): void;
}

export interface TransactionSource {
  /** Waits for the connection, then begins; refuses with `storage_busy` past the engine's busy timeout. */
  begin(): Promise<OpenTransaction>;
}

/** Runs a compiled query at once and synchronously, or declines (undefined) when it must queue instead. */
export interface DirectQueryRunner {
  run<R>(
    compiled: CompiledQuery,
    parameters: readonly unknown[],
    inTransaction: boolean,
  ): QueryResult<R> | undefined;
}

export function nowIso(ctx: SqlContext): string {
  return isoNow(ctx.clock);
}

/** Runs `work` atomically: inside the current transaction when there is one, else in a new one. */
export function atomically<T>(ctx: SqlContext, work: (db: Kysely<DatabaseSchema>) => Promise<T>): Promise<T> {
  if (ctx.inTransaction) return work(ctx.db);
  return ctx.db.transaction().execute((trx) => work(trx));
}

export type UniqueViolationErrors = Partial<Record<UniqueConstraintName, () => TroupeError>>;

/**
 * Turns a unique violation the caller expects into its domain error. Other unique violations become
 * `internal` errors naming the key (they mean a caller bug, not a user mistake); any other failure is
 * rethrown untouched.
 */
export function translateUniqueViolation(
  ctx: SqlContext,
  error: unknown,
  expected: UniqueViolationErrors,
): never {
  const constraint = ctx.dialect.uniqueViolation(error);
  if (constraint === undefined) throw error;
  const make = expected[constraint];
  if (make !== undefined) {
    const translated = make();
    throw new TroupeError(translated.code, translated.message, {
      cause: error,
      details: { ...translated.details, constraint },
    });
  }
  throw new TroupeError('internal', `Unique key ${constraint} violated`, {
    cause: error,
    details: { constraint },
  });
}

export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

export function fromJson<T>(text: string): T {
  return JSON.parse(text) as T;
}

export function fromNullableJson<T>(text: string | null): T | null {
  return text === null ? null : fromJson<T>(text);
}

export function toSqlBoolean(value: boolean): SqlBoolean {
  return value ? 1 : 0;
}

export function fromSqlBoolean(value: number): boolean {
  return Number(value) === 1;
}

/** PostgreSQL returns `count(*)` and bigint aggregates as strings; SQLite returns numbers. */
export function toNumber(value: string | number | bigint | null | undefined, fallback = 0): number {
  return value === null || value === undefined ? fallback : Number(value);
}
