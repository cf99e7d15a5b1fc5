import type { Kysely, Migration } from 'kysely';

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

/**
 * Issue 37: the verdict on a child's result (docs/verified-delegation.md), one row per judged child run. A table
 * of its own, not a column of `runs`: most runs are never judged, and the runs explorer's verdict filter reads
 * it through its primary key. `verification` is the JSON the parent received.
 */
export const verificationMigration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('run_verifications')
      .addColumn('run_id', 'text', (c) => c.primaryKey().references('runs.id'))
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('parent_run_id', 'text')
      .addColumn('verdict', 'text', (c) => c.notNull())
      .addColumn('verification', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('run_verifications_user_verdict_idx')
      .on('run_verifications')
      .columns(['user_id', 'verdict'])
      .execute();
  },

  async down(db: AnyDb) {
    await db.schema.dropTable('run_verifications').execute();
  },
};
