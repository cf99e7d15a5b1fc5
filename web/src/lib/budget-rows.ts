import type { BudgetView } from '../api/types.ts';

export interface BudgetRow {
  dimension: 'tokens' | 'model_calls' | 'tool_calls';
  name: string;
  /** Used by the run itself plus handed to its children. */
  spent: number;
  limit: number;
  text: string;
  exhausted: boolean;
}

const NAMES = { tokens: 'Tokens', model_calls: 'Model calls', tool_calls: 'Tool calls' } as const;

/** One row per limited dimension: what a budget bar shows. */
export function budgetRows(budget: BudgetView | null | undefined): BudgetRow[] {
  if (!budget) return [];
  const rows: BudgetRow[] = [];
  for (const dimension of ['tokens', 'model_calls', 'tool_calls'] as const) {
    const limit = budget.limits[dimension];
    if (limit === undefined) continue;
    const used = budget.used[dimension];
    const carved = budget.carved[dimension];
    const spent = used + carved;
    const handed = carved > 0 ? ` (${carved.toLocaleString('en')} to children)` : '';
    rows.push({
      dimension,
      name: NAMES[dimension],
      spent,
      limit,
      text: `${spent.toLocaleString('en')} / ${limit.toLocaleString('en')}${handed}`,
      exhausted: spent >= limit,
    });
  }
  return rows;
}
