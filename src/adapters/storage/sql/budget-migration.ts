import type { Kysely, Migration } from 'kysely';

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

const DIMENSIONS = ['tokens', 'model_calls', 'tool_calls'] as const;

/**
 * Issue 16 (docs/budgets.md): one budget ledger per budgeted run. Limits and counters are plain integer columns so
 * admission is a single conditional UPDATE on either engine; runs without a budget have no row.
 */
export const budgetMigration: Migration = {
  async up(db: AnyDb) {
    let table = db.schema
      .createTable('run_budgets')
      .addColumn('run_id', 'text', (c) => c.primaryKey().references('runs.id'))
      .addColumn('parent_run_id', 'text')
      .addColumn('root_run_id', 'text', (c) => c.notNull())
      .addColumn('wall_ms', 'integer')
      .addColumn('deadline_at', 'text');
    for (const dimension of DIMENSIONS) {
      table = table
        .addColumn(`limit_${dimension}`, 'integer')
        .addColumn(`used_${dimension}`, 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn(`carved_${dimension}`, 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn(`reserved_${dimension}`, 'integer', (c) => c.notNull().defaultTo(0));
    }
    await table.execute();
    await db.schema.createIndex('run_budgets_root_idx').on('run_budgets').column('root_run_id').execute();
  },

  async down(db: AnyDb) {
    await db.schema.dropTable('run_budgets').execute();
  },
};
