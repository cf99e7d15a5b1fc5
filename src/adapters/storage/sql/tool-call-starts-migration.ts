import type { Kysely, Migration } from 'kysely';

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

/**
 * Issue 36: the tool-call journal's `started` marks (docs/effects-and-forks.md#the-journal). Only external calls
 * get one, so most runs write none; the primary key is the only index (a resume reads by run and call ids).
 */
export const toolCallStartsMigration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('tool_call_starts')
      .addColumn('run_id', 'text', (c) => c.notNull().references('runs.id'))
      .addColumn('tool_call_id', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('tool_call_starts_pkey', ['run_id', 'tool_call_id'])
      .execute();
  },

  async down(db: AnyDb) {
    await db.schema.dropTable('tool_call_starts').execute();
  },
};
