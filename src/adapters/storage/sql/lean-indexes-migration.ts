import { sql, type Kysely, type Migration } from 'kysely';

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

/**
 * The active statuses as this migration knew them, written as the queries these indexes serve write them
 * (`activeStatusTerm` in sql-run-hot-queries.ts): SQLite uses a partial index only for a query that repeats
 * its WHERE terms, literals included.
 */
const ACTIVE = sql<boolean>`status in ('pending', 'running', 'input_required', 'cancel_requested')`;

/**
 * Issue 14: a write costs SQLite one WAL page per index leaf it touches. Two indexes keyed by `status`
 * were touched by every run, twice by each status change (the entry moves from one status's range to
 * another's), for queries that only ever look at active runs:
 * - `runs_user_status_idx` (user_id, status, created_by_run_id) counts a user's active child runs: partial on
 *   `status IN (active) AND created_by_run_id IS NOT NULL`, a root run never enters it and a child leaves it
 *   when it ends;
 * - `runs_status_created_idx` (status, created_at) serves the reconciler's reads of pending and leased runs:
 *   partial on `status IN (active)`, an ending only removes the entry.
 * And `thread_messages_run_step_idx` (run_id, step), which no query reads, goes: every checkpoint wrote a leaf
 * of it (about 5 WAL pages of a dispatch's 70). Runs are never deleted, so the foreign key from
 * `thread_messages.run_id` never needs it either. `runs-index-plans.test.ts` checks the plans.
 */
export const leanIndexesMigration: Migration = {
  async up(db: AnyDb) {
    await db.schema.dropIndex('runs_user_status_idx').execute();
    await db.schema
      .createIndex('runs_user_active_children_idx')
      .on('runs')
      .columns(['user_id', 'status', 'created_by_run_id'])
      .where(sql<boolean>`${ACTIVE} and created_by_run_id is not null`)
      .execute();
    await db.schema.dropIndex('runs_status_created_idx').execute();
    await db.schema
      .createIndex('runs_active_status_idx')
      .on('runs')
      .columns(['status', 'created_at'])
      .where(ACTIVE)
      .execute();
    await db.schema.dropIndex('thread_messages_run_step_idx').execute();
  },

  async down(db: AnyDb) {
    await db.schema
      .createIndex('thread_messages_run_step_idx')
      .on('thread_messages')
      .columns(['run_id', 'step'])
      .execute();
    await db.schema.dropIndex('runs_active_status_idx').execute();
    await db.schema
      .createIndex('runs_status_created_idx')
      .on('runs')
      .columns(['status', 'created_at'])
      .execute();
    await db.schema.dropIndex('runs_user_active_children_idx').execute();
    await db.schema
      .createIndex('runs_user_status_idx')
      .on('runs')
      .columns(['user_id', 'status', 'created_by_run_id'])
      .execute();
  },
};
