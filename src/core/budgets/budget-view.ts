import { remainingOf, type BudgetAmounts, type BudgetLimits, type RunBudget } from './budget.js';

/** A run's budget as the run tree and status panel show it: limit, used, handed on, remaining. */
export interface BudgetView {
  limits: BudgetLimits;
  deadline_at: string | null;
  used: BudgetAmounts;
  carved: BudgetAmounts;
  remaining: Partial<BudgetAmounts>;
  /**
   * Which figure `tokens` is: cache reads and writes weighted by their price (docs/budgets.md#cached-tokens),
   * not the raw counts the usage reports.
   */
  tokens_counted: 'cache_weighted';
}

export function budgetView(budget: RunBudget): BudgetView {
  return {
    limits: budget.limits,
    deadline_at: budget.deadline_at,
    used: budget.used,
    carved: budget.carved,
    remaining: remainingOf(budget),
    tokens_counted: 'cache_weighted',
  };
}
