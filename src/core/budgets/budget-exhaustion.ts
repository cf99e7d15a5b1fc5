import type { Refusal } from '../records/refusal.js';
import type { RunError } from '../records/run.js';
import type { BudgetDimension } from './budget-dimension.js';
import type { RunBudget } from './budget.js';

/** The `budget_exhausted` refusal: a run or a child start stopped by a limit (docs/budgets.md). */
export type BudgetRefusal = Extract<Refusal, { code: 'budget_exhausted' }>;

export function describeExhaustion(budget: RunBudget, dimension: BudgetDimension | 'wall_ms'): string {
  return `budget_exhausted: ${exhaustionRefusal(budget, dimension).reason}`;
}

/** The limit a run reached, as data (docs/budgets.md): what `describeExhaustion` says after its code. */
export function exhaustionRefusal(budget: RunBudget, dimension: BudgetDimension | 'wall_ms'): BudgetRefusal {
  if (dimension === 'wall_ms') {
    const limit = budget.limits.wall_ms ?? null;
    const reason = `the run's wall time of ${limit ?? 'its parent\u2019s'} ms is over`;
    return { code: 'budget_exhausted', reason, dimension, limit };
  }
  const limit = budget.limits[dimension] ?? 0;
  const spent = budget.used[dimension] + budget.carved[dimension];
  // Tokens are the ledger's cache-weighted figure, which the text says (docs/budgets.md#cached-tokens).
  const what =
    dimension === 'tokens' ? 'tokens (cache reads and writes at their price)' : dimension.replace('_', ' ');
  const reason = `${spent} of ${limit} ${what} used or handed to children`;
  return { code: 'budget_exhausted', reason, dimension, limit, spent };
}

/** The error a run ends with when a limit stops it: the text as before, the refusal as data. */
export function budgetExhaustedError(budget: RunBudget, dimension: BudgetDimension | 'wall_ms'): RunError {
  return {
    type: 'budget_exhausted',
    message: describeExhaustion(budget, dimension),
    refusal: exhaustionRefusal(budget, dimension),
  };
}
