import { BUDGET_DIMENSIONS, type BudgetDimension } from './budget-dimension.js';

/**
 * Budgets of run trees (docs/budgets.md). Counted dimensions are consumed by calls and carved from a parent for its
 * children; wall time is a deadline that a child inherits (it cannot be handed on, only narrowed).
 */

export interface BudgetLimits {
  tokens?: number;
  model_calls?: number;
  tool_calls?: number;
  wall_ms?: number;
}

export type BudgetAmounts = Record<BudgetDimension, number>;

/**
 * The ledger of one budgeted run. `used` is what the run's own calls consumed; `carved` is what it handed to
 * children (reserved at their start, the unused part returned when they end), so `limit - used - carved` is
 * what the run may still spend or hand on.
 */
export interface RunBudget {
  run_id: string;
  parent_run_id: string | null;
  limits: BudgetLimits;
  deadline_at: string | null;
  used: BudgetAmounts;
  carved: BudgetAmounts;
  /** What the parent reserved for this run at its start: the most it can get back when this run ends. */
  reserved: BudgetAmounts;
}

export function zeroAmounts(): BudgetAmounts {
  return { tokens: 0, model_calls: 0, tool_calls: 0 };
}

export function hasLimits(limits: BudgetLimits | null | undefined): limits is BudgetLimits {
  return (
    limits !== null && limits !== undefined && Object.values(limits).some((value) => value !== undefined)
  );
}

/** What the run may still spend or hand on, per limited dimension (never below 0). */
export function remainingOf(budget: RunBudget): Partial<BudgetAmounts> {
  const remaining: Partial<BudgetAmounts> = {};
  for (const dimension of BUDGET_DIMENSIONS) {
    const limit = budget.limits[dimension];
    if (limit !== undefined) {
      remaining[dimension] = Math.max(0, limit - budget.used[dimension] - budget.carved[dimension]);
    }
  }
  return remaining;
}

/** Which limit a refused call ran into, for the run's error; undefined when the ledger still admits it. */
export function exhaustedDimension(
  budget: RunBudget,
  charge: BudgetAmounts,
  now: string,
): BudgetDimension | 'wall_ms' | undefined {
  if (budget.deadline_at !== null && budget.deadline_at <= now) return 'wall_ms';
  const remaining = remainingOf(budget);
  for (const dimension of BUDGET_DIMENSIONS) {
    const left = remaining[dimension];
    if (left !== undefined && charge[dimension] > 0 && charge[dimension] > left) return dimension;
  }
  return undefined;
}
