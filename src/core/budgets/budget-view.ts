import { remainingOf, type BudgetAmounts, type BudgetLimits, type RunBudget } from './budget.js';

/** A run's budget as the run tree and status panel show it: limit, used, handed on, remaining. */
export interface BudgetView {
  limits: BudgetLimits;
  deadline_at: string | null;
  used: BudgetAmounts;
  carved: BudgetAmounts;
  remaining: Partial<BudgetAmounts>;
}

export function budgetView(budget: RunBudget): BudgetView {
  return {
    limits: budget.limits,
    deadline_at: budget.deadline_at,
    used: budget.used,
    carved: budget.carved,
    remaining: remainingOf(budget),
  };
}
