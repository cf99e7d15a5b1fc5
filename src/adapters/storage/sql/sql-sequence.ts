import type { SqlContext } from './sql-context.js';
import type { UniqueConstraintName } from './unique-constraints.js';

/** A safety net only: with the sequence's counter (or one writer at a time), writers of one key do not collide. */
const MAX_ATTEMPTS = 5;

/**
 * Runs a one-statement write that takes the next numbers of a per-key sequence (a run's events, a thread's
 * messages) through `sequenceBase`, whose counter serialises concurrent writers of one key on PostgreSQL and
 * whose engine runs one write at a time on SQLite. A unique violation of `constraint` (a counter that fell
 * behind its table, which the retry's statement catches up) outside a caller's transaction is retried;
 * inside one it is left to the caller, because PostgreSQL aborts the whole transaction on an error.
 */
export async function writeNextInSequence<T>(
  ctx: SqlContext,
  constraint: UniqueConstraintName,
  write: (ctx: SqlContext) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write(ctx);
    } catch (error) {
      const retry =
        !ctx.inTransaction && attempt < MAX_ATTEMPTS && ctx.dialect.uniqueViolation(error) === constraint;
      if (!retry) throw error;
    }
  }
}
