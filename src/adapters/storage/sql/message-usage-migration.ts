import type { Kysely, Migration } from 'kysely';

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

/**
 * Issue 35: a model's turn carries the usage of the call that produced it (JSON `{input_tokens,
 * output_tokens}`), written in the turn's own insert, so what a run's attempts settled survives a worker
 * that dies before it could store the run's usage (docs/usage.md). No index: the column is read with the
 * turns of a thread, by `thread_id`.
 */
export const messageUsageMigration: Migration = {
  async up(db: AnyDb) {
    await db.schema.alterTable('thread_messages').addColumn('usage', 'text').execute();
  },

  async down(db: AnyDb) {
    await db.schema.alterTable('thread_messages').dropColumn('usage').execute();
  },
};
