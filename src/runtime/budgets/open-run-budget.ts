import { validationFailed } from '../../core/to-validation-error.js';
import { hasLimits, zeroAmounts, type BudgetLimits, type RunBudget } from '../../core/budgets/budget.js';
import { carveChildBudget } from '../../core/budgets/carve-child-budget.js';
import type { BudgetRefusal } from '../../core/budgets/budget-exhaustion.js';
import { narrowBudget } from '../../core/budgets/narrow-budget.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Refusal } from '../../core/records/refusal.js';

/** A child's budget the parent's cannot give: the text the model reads starts with the code. */
function budgetRefusal(refusal: BudgetRefusal): { refused: string; refusal: Refusal } {
  return { refused: `budget_exhausted: ${refusal.reason}`, refusal };
}

/**
 * Opens the ledger of a root run (a chat turn, a top-level delegation): the agent's `config.budget` narrowed
 * by the request's. A request above the agent's budget is refused rather than lowered. Call inside the
 * transaction that inserts the run. Returns the ledger, if the run has one.
 */
export async function openRootBudget(
  tx: Storage,
  runId: string,
  agentBudget: BudgetLimits | undefined,
  requested: BudgetLimits | undefined,
  now: Date,
): Promise<RunBudget | undefined> {
  const { limits, issues } = narrowBudget(agentBudget, requested);
  if (issues.length > 0) throw validationFailed(issues.map((issue) => ({ ...issue, code: 'too_big' })));
  if (!hasLimits(limits)) return undefined;
  return tx.budgets.insert({
    run_id: runId,
    parent_run_id: null,
    limits,
    deadline_at: limits.wall_ms === undefined ? null : new Date(now.getTime() + limits.wall_ms).toISOString(),
    reserved: zeroAmounts(),
  });
}

/**
 * Carves a child's budget from its parent's remaining one (docs/budgets.md) and reserves it on the parent with one
 * conditional update, before the child's run exists; `open` then writes the child's ledger once its run row
 * is in. A refusal (nothing left, or more asked than remains) comes before any write. Inside the start's
 * transaction, so a start that fails later gives the reservation back by rolling back.
 */
export async function reserveChildBudget(
  tx: Storage,
  options: {
    parentRunId: string;
    /** False when the parent is known to have no ledger (one is created with its run, never removed). */
    parentHasLedger?: boolean | undefined;
    requested: BudgetLimits | undefined;
    agentBudget: BudgetLimits | undefined;
    share: number;
    now: Date;
  },
): Promise<{ refused: string; refusal: Refusal } | { open(runId: string): Promise<RunBudget | undefined> }> {
  const parent = options.parentHasLedger === false ? undefined : await tx.budgets.get(options.parentRunId);
  const carved = carveChildBudget({
    parent,
    requested: options.requested,
    agent: options.agentBudget,
    defaultShare: options.share,
    now: options.now,
  });
  if (carved.kind === 'refused') return budgetRefusal(carved.refusal);
  if (!hasLimits(carved.limits) && carved.deadline_at === null)
    return { open: () => Promise.resolve(undefined) };
  if (parent && !(await tx.budgets.carve(parent.run_id, carved.reserve))) {
    return budgetRefusal({
      code: 'budget_exhausted',
      reason: 'the budget has too little left to give this child',
    });
  }
  return {
    open(runId) {
      return tx.budgets.insert({
        run_id: runId,
        parent_run_id: parent?.run_id ?? null,
        limits: carved.limits,
        deadline_at: carved.deadline_at,
        reserved: carved.reserve,
      });
    },
  };
}
