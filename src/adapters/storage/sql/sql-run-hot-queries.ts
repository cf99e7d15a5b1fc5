import { sql } from 'kysely';
import type { RunStatus } from '../../../core/records/run.js';
import { preparedQuery } from './prepared-query.js';

/** The run queries every attempt makes, compiled once (see preparedQuery). */

export const selectRun = preparedQuery((db, args: { id: string }) =>
  db.selectFrom('runs').selectAll().where('id', '=', args.id),
);

/** A compare-and-set from pending: the one statement that hands a run to a worker. */
export const claimRun = preparedQuery(
  (db, args: { id: string; workerId: string; leaseExpiresAt: string; now: string; updatedAt: string }) =>
    db
      .updateTable('runs')
      .set((eb) => ({
        status: sql.lit('running'),
        worker_id: args.workerId,
        lease_expires_at: args.leaseExpiresAt,
        attempt: eb('attempt', '+', sql.lit(1)),
        started_at: eb.fn.coalesce('started_at', eb.val(args.now)),
        updated_at: args.updatedAt,
      }))
      .where('id', '=', args.id)
      .where('status', '=', sql.lit('pending'))
      .where('worker_id', 'is', null)
      .returningAll(),
);

/** Bounded by the depth limits (a chain is a few runs); the hop counter only guards a corrupt cycle. */
export const selectLineageStatuses = preparedQuery(
  (_db, args: { id: string }) => sql<{ status: RunStatus }>`
      WITH RECURSIVE chain(id, created_by_run_id, status, hop) AS (
        SELECT id, created_by_run_id, status, 0 FROM runs WHERE id = ${args.id}
        UNION ALL
        SELECT r.id, r.created_by_run_id, r.status, c.hop + 1
        FROM runs r JOIN chain c ON r.id = c.created_by_run_id
        WHERE c.hop < 64
      )
      SELECT status FROM chain ORDER BY hop`,
);

export const selectChildren = preparedQuery((db, args: { runId: string }) =>
  db
    .selectFrom('runs')
    .selectAll()
    .where('created_by_run_id', '=', args.runId)
    .orderBy('created_at')
    .orderBy('id'),
);

export const selectPreviousInConversation = preparedQuery(
  (db, args: { conversationId: string; createdAt: string; id: string }) =>
    db
      .selectFrom('runs')
      .selectAll()
      .where('conversation_id', '=', args.conversationId)
      .where((eb) =>
        eb.or([
          eb('created_at', '<', args.createdAt),
          eb.and([eb('created_at', '=', args.createdAt), eb('id', '<', args.id)]),
        ]),
      )
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(sql.lit(1)),
);
