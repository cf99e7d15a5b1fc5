import type { Kysely, Migration } from 'kysely';

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

/**
 * Issue 14: every child start counts the user's active child runs (`user_id = ? AND status IN (active) AND
 * created_by_run_id IS NOT NULL`). `runs_user_status_idx` (user_id, status) found the user's active runs but
 * read each one's row for `created_by_run_id`: 1,000 row reads per start in a fan-out of 1,000. With the
 * column in the index the count reads the index alone. Same index count, and `created_by_run_id` never
 * changes after the insert, so no write touches the index more than before.
 */
export const runsUserQuotaIndexMigration: Migration = {
  async up(db: AnyDb) {
    await db.schema.dropIndex('runs_user_status_idx').execute();
    await db.schema
      .createIndex('runs_user_status_idx')
      .on('runs')
      .columns(['user_id', 'status', 'created_by_run_id'])
      .execute();
  },

  async down(db: AnyDb) {
    await db.schema.dropIndex('runs_user_status_idx').execute();
    await db.schema.createIndex('runs_user_status_idx').on('runs').columns(['user_id', 'status']).execute();
  },
};
