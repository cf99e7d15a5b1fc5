import { sql, type Kysely, type Migration } from 'kysely';

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

const PARTIAL = [
  ['runs_created_by_idx', ['created_by_run_id', 'status']],
  ['runs_root_idx', ['root_run_id', 'created_at']],
] as const;

/**
 * Issue 14: every index of `runs` is written by every run start, and a start is mostly its writes. Of the 11
 * entries a root run start wrote, three go:
 * - `runs_created_by_idx` serves the children of a run (`created_by_run_id = ?` or `IS NOT NULL`), which a
 *   root is not: partial, without rows whose creator is null;
 * - `runs_root_idx` serves the members of a tree below its root: partial the same way (`runs.listByRoot`
 *   reads the root itself by primary key);
 * - `runs_status_lease_idx` (status, lease_expires_at) served only the lease reconciler, whose
 *   `status IN (leased)` SQLite already answered from `runs_status_created_idx` (status, created_at): dropped.
 * Both engines accept the same partial-index DDL; `runs-index-plans.test.ts` checks the SQLite plans.
 */
export const runsPartialIndexesMigration: Migration = {
  async up(db: AnyDb) {
    for (const [name, columns] of PARTIAL) {
      await db.schema.dropIndex(name).execute();
      await db.schema
        .createIndex(name)
        .on('runs')
        .columns([...columns])
        .where(sql<boolean>`created_by_run_id is not null`)
        .execute();
    }
    await db.schema.dropIndex('runs_status_lease_idx').execute();
  },

  async down(db: AnyDb) {
    await db.schema
      .createIndex('runs_status_lease_idx')
      .on('runs')
      .columns(['status', 'lease_expires_at'])
      .execute();
    for (const [name, columns] of PARTIAL) {
      await db.schema.dropIndex(name).execute();
      await db.schema
        .createIndex(name)
        .on('runs')
        .columns([...columns])
        .execute();
    }
  },
};
