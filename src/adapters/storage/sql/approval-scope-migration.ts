import type { Kysely, Migration } from 'kysely';

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

/**
 * Issue 35: an approval may cover the rest of its run ("approve for this run"): `scope` is `run` on the
 * decision that granted it, `call` on every other row (and on the rows written before it existed).
 */
export const approvalScopeMigration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .alterTable('tool_approvals')
      .addColumn('scope', 'text', (c) => c.notNull().defaultTo('call'))
      .execute();
  },

  async down(db: AnyDb) {
    await db.schema.alterTable('tool_approvals').dropColumn('scope').execute();
  },
};
