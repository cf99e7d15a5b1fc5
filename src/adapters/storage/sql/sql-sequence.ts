import { atomically } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import type { UniqueConstraintName } from './unique-constraints.js';

/** A safety net only: with the engine's sequence lock, writers of one key do not collide at all. */
const MAX_ATTEMPTS = 5;

/**
 * Runs an "INSERT … SELECT MAX(seq) + 1" write so that concurrent writers of one sequence (a run's events,
 * a thread's messages) never take the same number:
 * - engines that write one statement at a time (SQLite) need nothing more than the single statement;
 * - others (PostgreSQL) serialise the writers of `key` with a transaction-scoped lock, so the statement
 *   that follows reads the previous writer's committed row instead of racing it.
 * A unique violation of `constraint` outside a caller's transaction is retried in a fresh transaction;
 * inside one it is left to the caller, because PostgreSQL aborts the whole transaction on an error.
 */
export async function writeNextInSequence<T>(
  ctx: SqlContext,
  constraint: UniqueConstraintName,
  /** One key, or several locked in the order given (a multi-run append: keep a child's before its parent's). */
  key: string | readonly string[],
  /**
   * The write, given the context to run it in: the caller's own on SQLite (so a prepared statement inside a
   * transaction takes its direct path, and no Kysely transaction object is made for it), the locking
   * transaction's on the others.
   */
  write: (ctx: SqlContext) => Promise<T>,
): Promise<T> {
  const lock = ctx.dialect.lockKey;
  const once =
    lock === undefined
      ? () => write(ctx)
      : () =>
          atomically(ctx, async (db) => {
            for (const one of typeof key === 'string' ? [key] : key) await lock(db, one);
            return write({ ...ctx, db });
          });
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await once();
    } catch (error) {
      const retry =
        !ctx.inTransaction && attempt < MAX_ATTEMPTS && ctx.dialect.uniqueViolation(error) === constraint;
      if (!retry) throw error;
    }
  }
}
