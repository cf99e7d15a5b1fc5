import { sql } from 'kysely';
import { TroupeError } from '../../../core/errors.js';
import { settleInOrder } from '../../../core/settle-in-order.js';
import { inOpenTransaction } from './in-open-transaction.js';
import { preparedQuery } from './prepared-query.js';
import type { SqlContext } from './sql-context.js';

/*
 * A run's claims wait for the transaction that starts it (docs/scale-out.md, "The run queue"). On PostgreSQL a
 * run start holds an advisory lock on its run from its first round trip (`holdClaims`), so its process may queue
 * the run while the COMMIT is still in flight; a worker's claim first takes the same lock shared, which waits
 * in the database until that transaction ended, and only then looks for the row: committed, it is there;
 * rolled back, it never was and the claim is a no-op, like any duplicate delivery. A claim of a run no start
 * holds takes the shared lock at once. SQLite needs none of it: its processes do not queue runs for others.
 */

const claimKey = (runId: string): string => `run-start:${runId}`;

const holdClaimsQuery = preparedQuery(
  (_db, args: { key: string }) => sql`SELECT pg_advisory_xact_lock(hashtextextended(${args.key}, 0))`,
);

/**
 * How long a claim waits for its run's start. A start commits in milliseconds; one held longer belongs to a
 * process that froze or lost its network while PostgreSQL still holds its session, and the claim then fails
 * (`lock_not_available`) instead of holding a worker's connection: the run, if it commits, is still `pending`
 * and the reconcilers queue it again.
 */
export const CLAIM_WAIT_MS = 5_000;

// The timeout is set in the CTE, so it is in force when the outer SELECT starts waiting; `true`: this transaction
// only. `waitMs` null keeps the transaction's own (a claim inside a caller's transaction must not change it).
const awaitStartQuery = preparedQuery(
  (_db, args: { key: string; waitMs: string | null }) =>
    sql`WITH bounded AS (SELECT set_config('lock_timeout', coalesce(${args.waitMs}, current_setting('lock_timeout')), true))
        SELECT pg_advisory_xact_lock_shared(hashtextextended(${args.key}, 0)) FROM bounded`,
);

/** See `RunRepository.holdClaims`. */
export async function holdClaims(ctx: SqlContext, runId: string): Promise<boolean> {
  if (ctx.dialect.name !== 'postgres') return false;
  if (!ctx.inTransaction) {
    throw new TroupeError('internal', "A run's claims are held by a transaction: call holdClaims inside one");
  }
  await holdClaimsQuery(ctx, { key: claimKey(runId) });
  return true;
}

/**
 * `claim` once no transaction holds the run's claims, in one round trip: the wait and the claim leave in one
 * write with their BEGIN and COMMIT (the pipelined transactions of storage/postgres), the claim's statement
 * starting, with a snapshot of its own, after the wait ended.
 */
export function claimAfterStart<T>(
  ctx: SqlContext,
  runId: string,
  claim: (ctx: SqlContext) => Promise<T>,
): Promise<T> {
  if (ctx.dialect.name !== 'postgres') return claim(ctx);
  const key = claimKey(runId);
  const source = ctx.transactions;
  if (ctx.inTransaction || source === undefined) {
    return awaitStartQuery(ctx, { key, waitMs: null }).then(() => claim(ctx));
  }
  const wait = { key, waitMs: String(CLAIM_WAIT_MS) };
  return inOpenTransaction(source, async (transaction) => {
    const tx: SqlContext = {
      db: transaction.db,
      dialect: ctx.dialect,
      clock: ctx.clock,
      inTransaction: true,
    };
    const waited = awaitStartQuery(tx, wait);
    const claimed = claim(tx);
    transaction.commitBehind?.([waited, claimed]);
    // The first failure in the order sent: a wait that timed out, not the claim it aborted behind it.
    const [, value] = await settleInOrder([waited, claimed]);
    return value;
  });
}
