import {
  sql,
  type QueryCreator,
  type QueryResult,
  type RawBuilder,
  type Selectable,
  type Updateable,
} from 'kysely';
import type { RunExpectation } from '../../../core/ports/storage.js';
import { ACTIVE_RUN_STATUSES, type RunStatus } from '../../../core/records/run.js';
import type { DatabaseSchema, RunsTable } from './database-schema.js';
import { preparedQuery, preparedQueryFamily } from './prepared-query.js';
import type { SqlContext } from './sql-context.js';
import type { SqlDialect } from './sql-dialect.js';
import { RUN_COLUMNS, valuesOf } from './table-columns.js';

/** The run queries every attempt makes, compiled once (see preparedQuery). */

export const selectRun = preparedQuery((db, args: { id: string }) =>
  db.selectFrom('runs').selectAll().where('id', '=', args.id),
);

/**
 * Every start inserts a run. DO NOTHING on every unique key (no conflict target): the caller names the key
 * that refused it (see `SqlRunRepository.insert`). No RETURNING: every column is the caller's value, and on
 * SQLite a RETURNING clause costs more than the insert itself (measured on a bench database with 9,000 runs:
 * 38 µs plain, 71 µs returning the id, 95 µs returning the row). Whether it inserted is in the affected-row
 * count.
 */
export const insertRun = preparedQuery((db, args: RunsTable & Record<string, unknown>) =>
  db
    .insertInto('runs')
    .values(valuesOf<RunsTable>(RUN_COLUMNS, args))
    .onConflict((oc) => oc.doNothing()),
);

/** A chat post with a request id looks its replay up first; a child start only once its insert failed. */
export const selectRunByRequestId = preparedQuery((db, args: { userId: string; requestId: string }) =>
  db
    .selectFrom('runs')
    .selectAll()
    .where('user_id', '=', args.userId)
    .where('request_id', '=', args.requestId),
);

export interface ClaimArgs extends Record<string, unknown> {
  id: string;
  workerId: string;
  leaseExpiresAt: string;
  now: string;
  updatedAt: string;
}

/** A compare-and-set from pending: the one statement that hands a run to a worker. */
export function claimUpdate(db: QueryCreator<DatabaseSchema>, args: ClaimArgs) {
  return db
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
    .returningAll();
}

export const claimRun = preparedQuery(claimUpdate);

/**
 * `JOIN runs AS alias ON condition`, read one key at a time on every engine: the step of a walk over `runs`
 * (docs/scale-out.md, "Plans that do not depend on statistics"). PostgreSQL plans a join from the table's
 * statistics, and a prepared statement keeps its plan until the next ANALYZE: planned while `runs` was small (a
 * new deployment, a pooled connection opened early), a walk's step hashed the whole table on every call, a
 * sequential scan that grew with it. A LATERAL subquery that cannot be pulled up (OFFSET 0) leaves one index
 * probe per walked row (runs-walk-plans.test.ts). SQLite probes the index already (runs-index-plans.test.ts).
 * `columns` are read as the alias's.
 */
export function runsByKey(
  dialect: SqlDialect,
  alias: string,
  condition: RawBuilder<unknown>,
  columns: RawBuilder<unknown> = sql`*`,
) {
  const table = sql.raw(alias);
  return dialect.name === 'postgres'
    ? sql`CROSS JOIN LATERAL (SELECT ${columns} FROM runs AS ${table} WHERE ${condition} OFFSET 0) AS ${table}`
    : sql`JOIN runs AS ${table} ON ${condition}`;
}

/**
 * `chain`: the run `id` (hop 0) and every run above it, by creator. Bounded by the depth limits (a chain is a
 * few runs); the hop counter only guards a corrupt cycle.
 */
export function lineageChain(dialect: SqlDialect, id: unknown) {
  return sql`WITH RECURSIVE chain(id, created_by_run_id, status, hop) AS (
        SELECT id, created_by_run_id, status, 0 FROM runs WHERE id = ${id}
        UNION ALL
        SELECT r.id, r.created_by_run_id, r.status, c.hop + 1
        FROM chain c ${runsByKey(dialect, 'r', sql`r.id = c.created_by_run_id`, sql`r.id, r.created_by_run_id, r.status`)}
        WHERE c.hop < 64
      )`;
}

export const selectLineageStatuses = preparedQuery(
  (_db, args: { id: string }, dialect) => sql<{ status: RunStatus }>`
      ${lineageChain(dialect, args.id)}
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

/** The statuses of a run that has not ended, as SQL literals. */
export const ACTIVE_STATUSES = sql.join(ACTIVE_RUN_STATUSES.map((status) => sql.lit(status)));

/**
 * `status IN (active)`, written as the partial indexes on it say it (lean-indexes-migration.ts): a query that has this
 * term may read them.
 */
export const activeStatusTerm = sql<boolean>`status in (${ACTIVE_STATUSES})`;

/**
 * The active runs below the `seeds` (rows of `(id, part, 1)`: the first level, tagged with the part of the
 * answer it starts), parents before their children and siblings oldest first, part by part. Walks the whole
 * subtree through `runs_created_by_idx` (terminal runs too: a finished child may have left active children of
 * its own) and keeps the active runs. `created_by_run_id` only ever points to an older run, so the walk ends;
 * the hop bound is a guard, as in the lineage walk. `before` adds CTEs the seeds read.
 */
function activeRunsBelow(
  dialect: SqlDialect,
  seeds: RawBuilder<unknown>,
  before: RawBuilder<unknown> = sql``,
) {
  return sql<Selectable<RunsTable>>`
      WITH RECURSIVE ${before}
      tree(id, part, hop) AS (
        ${seeds}
        UNION ALL
        SELECT r.id, t.part, t.hop + 1
        FROM tree t ${runsByKey(dialect, 'r', sql`r.created_by_run_id = t.id`, sql`r.id`)}
        WHERE t.hop < 64
      )
      SELECT runs.* FROM tree ${runsByKey(dialect, 'runs', sql`runs.id = tree.id`)}
      WHERE runs.status IN (${ACTIVE_STATUSES})
      ORDER BY tree.part, tree.hop, runs.created_at, runs.id`;
}

export const selectActiveDescendants = preparedQuery((_db, args: { runId: string }, dialect) =>
  activeRunsBelow(dialect, sql`SELECT id, 0, 1 FROM runs WHERE created_by_run_id = ${args.runId}`),
);

/**
 * What a conversation run's end closes: the active runs below it (`own`), then those below the run started
 * just before it in its conversation (ties on created_at broken by id).
 */
export const selectActiveBelowTurn = preparedQueryFamily({
  key: ({ own }: { own: boolean }) => String(own),
  build:
    ({ own }) =>
    (_db, args: { id: string; conversationId: string; createdAt: string }, dialect) =>
      activeRunsBelow(
        dialect,
        sql`
          ${own ? sql`SELECT id, 0, 1 FROM runs WHERE created_by_run_id = ${args.id} UNION ALL` : sql``}
          SELECT below.id, 1, 1
          FROM previous ${runsByKey(dialect, 'below', sql`below.created_by_run_id = previous.id`, sql`below.id`)}`,
        sql`previous(id) AS (
          SELECT id FROM runs WHERE conversation_id = ${args.conversationId}
            AND (created_at < ${args.createdAt} OR (created_at = ${args.createdAt} AND id < ${args.id}))
          ORDER BY created_at DESC, id DESC LIMIT 1
        ),`,
      ),
});

/** What an update's SQL depends on: the columns it sets and the expectations it checks. */
interface RunUpdateShape {
  columns: (keyof RunsTable)[];
  /** How many statuses it may move from; undefined when it does not check the status. */
  statuses: number | undefined;
  worker: 'any' | 'none' | 'this';
  leaseLive: boolean;
  leaseExpired: boolean;
  /** PostgreSQL: the statement fails (division by zero, `SqlDialect.guardFailed`) when no row matched. */
  orFail: boolean;
}

/**
 * A compare-and-set update of one run, prepared per shape (a handful of shapes exist in the code: claim,
 * park, finish, cancel, lease renewal, hand-back and take-over).
 */
const runUpdate = preparedQueryFamily({
  key: (shape: RunUpdateShape) =>
    `${shape.columns.join(',')}|${shape.statuses ?? '-'}|${shape.worker}|${shape.leaseLive}|${shape.leaseExpired}|${shape.orFail}`,
  build: (shape) => (db, args: Record<string, unknown>, dialect) => {
    const values = Object.fromEntries(shape.columns.map((column) => [column, args[`set_${column}`]]));
    let update = db
      .updateTable('runs')
      .set(values as Updateable<RunsTable>)
      .where('id', '=', args.id as string);
    if (shape.statuses !== undefined) {
      const statuses = Array.from(
        { length: shape.statuses },
        (_, index) => args[`status${index}`] as RunStatus,
      );
      update = update.where('status', 'in', statuses);
    }
    if (shape.worker === 'none') update = update.where('worker_id', 'is', null);
    else if (shape.worker === 'this') update = update.where('worker_id', '=', args.workerId as string);
    if (shape.leaseLive) update = update.where('lease_expires_at', '>', args.leaseLiveAt as string);
    if (shape.leaseExpired) {
      update = update.where((eb) =>
        eb.or([
          eb('lease_expires_at', 'is', null),
          eb('lease_expires_at', '<=', args.leaseExpiredAt as string),
        ]),
      );
    }
    if (!shape.orFail || dialect.name !== 'postgres') return update.returningAll();
    // The guard row is read first and always exists: with no run moved, its division fails the statement, and
    // with it the transaction, on the server (a COMMIT already sent behind it commits nothing).
    return sql<Selectable<RunsTable>>`with moved as (${update.returningAll()})
      select moved.* from (select count(*) as n from moved) as guard left join moved on true
      where 1 / guard.n = 1`;
  },
});

export function updateRun(
  ctx: SqlContext,
  id: string,
  set: Updateable<RunsTable>,
  expect: RunExpectation,
  orFail = false,
): Promise<QueryResult<Selectable<RunsTable>>> {
  const columns = Object.keys(set).sort() as (keyof RunsTable)[];
  const statuses = expect.status ?? [];
  const shape: RunUpdateShape = {
    columns,
    statuses: expect.status?.length,
    worker: expect.worker_id === undefined ? 'any' : expect.worker_id === null ? 'none' : 'this',
    leaseLive: expect.lease_live_at !== undefined,
    leaseExpired: expect.lease_expired_at !== undefined,
    orFail,
  };
  const args: Record<string, unknown> = {
    id,
    workerId: expect.worker_id,
    leaseLiveAt: expect.lease_live_at,
    leaseExpiredAt: expect.lease_expired_at,
  };
  for (const column of columns) args[`set_${column}`] = set[column];
  statuses.forEach((status, index) => (args[`status${index}`] = status));
  return runUpdate(shape)(ctx, args);
}
