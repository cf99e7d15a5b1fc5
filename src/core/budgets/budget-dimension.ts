/** The counted dimensions of a budget (docs/budgets.md): consumed by calls and carved from a parent for its children. */
export const BUDGET_DIMENSIONS = ['tokens', 'model_calls', 'tool_calls'] as const;
export type BudgetDimension = (typeof BUDGET_DIMENSIONS)[number];
