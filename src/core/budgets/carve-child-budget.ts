import type { BudgetRefusal } from './budget-exhaustion.js';
import { BUDGET_DIMENSIONS, type BudgetDimension } from './budget-dimension.js';

const words = (dimension: BudgetDimension): string => dimension.replace('_', ' ');
import { remainingOf, zeroAmounts, type BudgetAmounts, type BudgetLimits, type RunBudget } from './budget.js';

export interface ChildBudgetInput {
  /** The creating run's ledger; none when the parent runs without a budget. */
  parent: RunBudget | undefined;
  /** What the parent's tool call asked for (`budget` of `task`, `subagent_start`, `delegate`). */
  requested: BudgetLimits | undefined;
  /** The child agent's own `config.budget`: a child never gets more than its agent allows. */
  agent: BudgetLimits | undefined;
  /** Share of the parent's remaining budget a child gets when it asks for nothing (0 < share ≤ 1). */
  defaultShare: number;
  now: Date;
}

export type ChildBudget =
  | { kind: 'granted'; limits: BudgetLimits; deadline_at: string | null; reserve: BudgetAmounts }
  | { kind: 'refused'; refusal: BudgetRefusal };

function refused(
  parent: RunBudget | undefined,
  dimension: BudgetRefusal['dimension'] & string,
  left: number,
  reason: string,
): ChildBudget {
  const limit =
    dimension === 'wall_ms' ? (parent?.limits.wall_ms ?? null) : (parent?.limits[dimension] ?? null);
  return {
    kind: 'refused',
    refusal: {
      code: 'budget_exhausted',
      reason,
      dimension,
      limit,
      ...(limit === null ? {} : { spent: Math.max(0, limit - left) }),
    },
  };
}

/**
 * Carves a child's budget from its parent's remaining one (docs/budgets.md): an explicit ask must fit in what is
 * left; otherwise the default share applies. The amount taken from a limited parent is reserved there at
 * start (`reserve`) and what the child does not use is returned when it ends. Wall time is a deadline, so a
 * child's can only be earlier than its parent's.
 */
export function carveChildBudget(input: ChildBudgetInput): ChildBudget {
  const remaining = input.parent ? remainingOf(input.parent) : {};
  const limits: BudgetLimits = {};
  const reserve = zeroAmounts();
  for (const dimension of BUDGET_DIMENSIONS) {
    const left = remaining[dimension];
    const asked = input.requested?.[dimension];
    if (left !== undefined && left <= 0) {
      return refused(
        input.parent,
        dimension,
        left,
        `The budget has no ${words(dimension)} left to give a child`,
      );
    }
    if (asked !== undefined && left !== undefined && asked > left) {
      const reason = `The child asks for ${asked} ${words(dimension)} but only ${left} remain`;
      return refused(input.parent, dimension, left, reason);
    }
    let value =
      asked ?? (left === undefined ? undefined : Math.max(1, Math.floor(left * input.defaultShare)));
    const own = input.agent?.[dimension];
    if (own !== undefined) value = value === undefined ? own : Math.min(value, own);
    if (value === undefined) continue;
    limits[dimension] = value;
    if (left !== undefined) reserve[dimension] = value;
  }
  const now = input.now.getTime();
  const parentDeadline = input.parent?.deadline_at ? Date.parse(input.parent.deadline_at) : undefined;
  const parentLeftMs = parentDeadline === undefined ? undefined : parentDeadline - now;
  const askedWall = input.requested?.wall_ms;
  if (askedWall !== undefined && parentLeftMs !== undefined && askedWall > parentLeftMs) {
    const left = Math.max(0, parentLeftMs);
    return refused(
      input.parent,
      'wall_ms',
      left,
      `The child asks for ${askedWall} ms but only ${left} ms remain`,
    );
  }
  const walls = [askedWall, input.agent?.wall_ms].filter((value): value is number => value !== undefined);
  const ownWall = walls.length > 0 ? Math.min(...walls) : undefined;
  if (ownWall !== undefined) limits.wall_ms = ownWall;
  else if (parentLeftMs !== undefined) limits.wall_ms = Math.max(0, parentLeftMs);
  const ends = [parentDeadline, ownWall === undefined ? undefined : now + ownWall].filter(
    (value): value is number => value !== undefined,
  );
  const deadline = ends.length > 0 ? new Date(Math.min(...ends)).toISOString() : null;
  return { kind: 'granted', limits, deadline_at: deadline, reserve };
}

/** What a finished child gives back to its parent: the reserved part it neither used nor handed on. */
export function unusedReserve(child: RunBudget): BudgetAmounts {
  const back = zeroAmounts();
  for (const dimension of BUDGET_DIMENSIONS) {
    const limit = child.limits[dimension];
    if (limit === undefined) continue;
    const unused = Math.max(0, limit - child.used[dimension] - child.carved[dimension]);
    back[dimension] = Math.min(child.reserved[dimension], unused);
  }
  return back;
}
