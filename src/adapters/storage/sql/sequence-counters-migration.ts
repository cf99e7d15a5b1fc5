import type { Kysely, Migration } from 'kysely';

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

/**
 * Issue 39: the highest number taken in each per-key sequence (`run_events:{run}`, `thread_messages:{thread}`,
 * `run_inbox:{run}`). On PostgreSQL an append bumps its counter in the same statement as its insert (an upsert
 * in a CTE, whose row lock serialises the writers of one key), instead of a transaction around an advisory
 * lock and the insert: one round trip instead of four (docs/scale-out.md#what-scales-how). No backfill: a key
 * without a row starts from its table's highest `seq`, and a counter behind its table catches up. SQLite writes
 * one statement at a time and reads the highest `seq` directly; it never writes this table.
 */
export const sequenceCountersMigration: Migration = {
  async up(db: AnyDb) {
    await db.schema
      .createTable('sequence_counters')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('last_value', 'bigint', (c) => c.notNull())
      .execute();
  },

  async down(db: AnyDb) {
    await db.schema.dropTable('sequence_counters').execute();
  },
};
