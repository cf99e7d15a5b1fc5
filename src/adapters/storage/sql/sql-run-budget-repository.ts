import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import { BUDGET_DIMENSIONS, type BudgetDimension } from '../../../core/budgets/budget-dimension.js';
import type { BudgetAmounts, BudgetLimits, RunBudget } from '../../../core/budgets/budget.js';
import type { NewRunBudget, RunBudgetRepository } from '../../../core/ports/run-budget-repository.js';
import type { DatabaseSchema, RunBudgetsTable } from './database-schema.js';
import type { SqlContext } from './sql-context.js';
import { preparedQuery } from './prepared-query.js';
import { selectByIds } from './select-by-ids.js';

const selectBudget = preparedQuery((db, args: { runId: string }) =>
  db.selectFrom('run_budgets').selectAll().where('run_id', '=', args.runId),
);

type Eb = ExpressionBuilder<DatabaseSchema, 'run_budgets'>;

export function budgetFromRow(row: RunBudgetsTable): RunBudget {
  const limits: BudgetLimits = {};
  const amounts = (prefix: 'used' | 'carved' | 'reserved'): BudgetAmounts => ({
    tokens: row[`${prefix}_tokens`],
    model_calls: row[`${prefix}_model_calls`],
    tool_calls: row[`${prefix}_tool_calls`],
  });
  for (const dimension of BUDGET_DIMENSIONS) {
    const limit = row[`limit_${dimension}`];
    if (limit !== null) limits[dimension] = limit;
  }
  if (row.wall_ms !== null) limits.wall_ms = row.wall_ms;
  return {
    run_id: row.run_id,
    parent_run_id: row.parent_run_id,
    limits,
    deadline_at: row.deadline_at,
    used: amounts('used'),
    carved: amounts('carved'),
    reserved: amounts('reserved'),
  };
}

/** `limit IS NULL OR used + carved + amount <= limit`: the amount fits what is left of one dimension. */
function fits(eb: Eb, dimension: BudgetDimension, amount: number): Expression<SqlBool> {
  if (amount <= 0) return sql<SqlBool>`1 = 1`;
  const limit = eb.ref(`limit_${dimension}`);
  return eb.or([
    eb(limit, 'is', null),
    eb(sql`${eb.ref(`used_${dimension}`)} + ${eb.ref(`carved_${dimension}`)} + ${amount}`, '<=', limit),
  ]);
}

function increments(prefix: 'used' | 'carved', amounts: Partial<BudgetAmounts>, sign: 1 | -1) {
  const set: Record<string, unknown> = {};
  for (const dimension of BUDGET_DIMENSIONS) {
    const amount = amounts[dimension] ?? 0;
    if (amount === 0) continue;
    const column = `${prefix}_${dimension}` as const;
    set[column] = sql`${sql.ref(column)} + ${sign * amount}`;
  }
  return set;
}

export class SqlRunBudgetRepository implements RunBudgetRepository {
  constructor(private readonly ctx: SqlContext) {}

  async insert(budget: NewRunBudget): Promise<RunBudget> {
    const root = await this.ctx.db
      .selectFrom('runs')
      .select('root_run_id')
      .where('id', '=', budget.run_id)
      .executeTakeFirstOrThrow();
    const row: RunBudgetsTable = {
      run_id: budget.run_id,
      parent_run_id: budget.parent_run_id,
      root_run_id: root.root_run_id,
      wall_ms: budget.limits.wall_ms ?? null,
      deadline_at: budget.deadline_at,
      limit_tokens: budget.limits.tokens ?? null,
      used_tokens: 0,
      carved_tokens: 0,
      reserved_tokens: budget.reserved.tokens,
      limit_model_calls: budget.limits.model_calls ?? null,
      used_model_calls: 0,
      carved_model_calls: 0,
      reserved_model_calls: budget.reserved.model_calls,
      limit_tool_calls: budget.limits.tool_calls ?? null,
      used_tool_calls: 0,
      carved_tool_calls: 0,
      reserved_tool_calls: budget.reserved.tool_calls,
    };
    await this.ctx.db.insertInto('run_budgets').values(row).execute();
    return budgetFromRow(row);
  }

  async get(runId: string): Promise<RunBudget | undefined> {
    const row = (await selectBudget(this.ctx, { runId })).rows[0];
    return row && budgetFromRow(row);
  }

  async getMany(runIds: readonly string[]): Promise<RunBudget[]> {
    const rows = await selectByIds(runIds, (chunk) =>
      this.ctx.db.selectFrom('run_budgets').selectAll().where('run_id', 'in', chunk).execute(),
    );
    return rows.map(budgetFromRow);
  }

  async listByRoot(rootRunId: string): Promise<RunBudget[]> {
    const rows = await this.ctx.db
      .selectFrom('run_budgets')
      .selectAll()
      .where('root_run_id', '=', rootRunId)
      .execute();
    return rows.map(budgetFromRow);
  }

  async admit(runId: string, charge: BudgetAmounts, now: string): Promise<RunBudget | undefined> {
    const row = await this.ctx.db
      .updateTable('run_budgets')
      .set(increments('used', charge, 1))
      .where('run_id', '=', runId)
      .where((eb) =>
        eb.and([
          eb.or([eb('deadline_at', 'is', null), eb('deadline_at', '>', now)]),
          ...BUDGET_DIMENSIONS.map((dimension) => fits(eb, dimension, charge[dimension])),
        ]),
      )
      .returningAll()
      .executeTakeFirst();
    return row && budgetFromRow(row);
  }

  async settle(runId: string, delta: Partial<BudgetAmounts>): Promise<void> {
    const set = increments('used', delta, 1);
    if (Object.keys(set).length === 0) return;
    await this.ctx.db.updateTable('run_budgets').set(set).where('run_id', '=', runId).execute();
  }

  async carve(runId: string, amounts: BudgetAmounts): Promise<RunBudget | undefined> {
    const row = await this.ctx.db
      .updateTable('run_budgets')
      .set(increments('carved', amounts, 1))
      .where('run_id', '=', runId)
      .where((eb) => eb.and(BUDGET_DIMENSIONS.map((dimension) => fits(eb, dimension, amounts[dimension]))))
      .returningAll()
      .executeTakeFirst();
    return row && budgetFromRow(row);
  }

  async release(runId: string, amounts: BudgetAmounts): Promise<void> {
    const set = increments('carved', amounts, -1);
    if (Object.keys(set).length === 0) return;
    await this.ctx.db.updateTable('run_budgets').set(set).where('run_id', '=', runId).execute();
  }
}
