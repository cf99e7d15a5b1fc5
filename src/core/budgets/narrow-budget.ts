import type { BudgetLimits } from './budget.js';

const KEYS = ['tokens', 'model_calls', 'tool_calls', 'wall_ms'] as const;

export interface BudgetIssue {
  path: string;
  message: string;
}

/**
 * A request's budget narrows the agent's (docs/budgets.md), never widens it: a value above the agent's is an issue
 * rather than silently lowered, so a caller learns the real ceiling. Unset values inherit the agent's.
 */
export function narrowBudget(
  agent: BudgetLimits | undefined,
  request: BudgetLimits | undefined,
  path = 'budget',
): { limits: BudgetLimits; issues: BudgetIssue[] } {
  const limits: BudgetLimits = {};
  const issues: BudgetIssue[] = [];
  for (const key of KEYS) {
    const ceiling = agent?.[key];
    const asked = request?.[key];
    if (asked !== undefined && ceiling !== undefined && asked > ceiling) {
      issues.push({ path: `${path}.${key}`, message: `At most the agent's budget of ${ceiling}` });
    }
    const value = asked === undefined ? ceiling : ceiling === undefined ? asked : Math.min(asked, ceiling);
    if (value !== undefined) limits[key] = value;
  }
  return { limits, issues };
}
