import type { Kysely, Migration } from 'kysely';

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

/**
 * Issue 36: a run a fork started records where it came from (JSON `{run_id, step}`, null on every other run),
 * so the runs explorer shows and filters forks and the console offers "compare with source"
 * (docs/effects-and-forks.md#fork). No index: the explorer filters it on pages it already reads by user and time.
 */
export const runForksMigration: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('runs').addColumn('forked_from', 'text').execute();
  },

  async down(db: AnyDb) {
    await db.schema.alterTable('runs').dropColumn('forked_from').execute();
  },
};
