import type { BudgetAmounts, BudgetLimits, RunBudget } from '../budgets/budget.js';

export interface NewRunBudget {
  run_id: string;
  parent_run_id: string | null;
  limits: BudgetLimits;
  deadline_at: string | null;
  /** What the parent reserved for this run (zero for a root). */
  reserved: BudgetAmounts;
}

/**
 * The budget ledgers of runs (docs/budgets.md). Every change is one conditional statement, so two processes
 * spending from the same ledger can never both pass a limit that only one of them fits under.
 */
export interface RunBudgetRepository {
  insert(budget: NewRunBudget): Promise<RunBudget>;
  get(runId: string): Promise<RunBudget | undefined>;
  /** The ledgers of those runs that have one, in no particular order. */
  getMany(runIds: readonly string[]): Promise<RunBudget[]>;
  /** The ledgers of every run of a tree. */
  listByRoot(rootRunId: string): Promise<RunBudget[]>;
  /**
   * Charges `charge` to the run's own use if it fits under every limit it touches and the deadline is after
   * `now`; returns the ledger after the charge, or undefined when refused (or there is no ledger).
   */
  admit(runId: string, charge: BudgetAmounts, now: string): Promise<RunBudget | undefined>;
  /** Corrects the run's own use after the fact (actual tokens minus the estimate); may exceed a limit. */
  settle(runId: string, delta: Partial<BudgetAmounts>): Promise<void>;
  /** Reserves `amounts` of the run's remaining budget for a child; undefined when they do not fit. */
  carve(runId: string, amounts: BudgetAmounts): Promise<RunBudget | undefined>;
  /** Gives back what a finished child did not use. */
  release(runId: string, amounts: BudgetAmounts): Promise<void>;
}
