import { describe, expect, it } from 'vitest';
import { budgetRows } from './budget-rows.ts';

describe('budgetRows', () => {
  it('shows each limited dimension as used plus handed on, out of its limit', () => {
    const rows = budgetRows({
      limits: { tokens: 10_000, model_calls: 4 },
      deadline_at: null,
      used: { tokens: 1200, model_calls: 4, tool_calls: 9 },
      carved: { tokens: 3000, model_calls: 0, tool_calls: 0 },
      remaining: { tokens: 5800, model_calls: 0 },
      tokens_counted: 'cache_weighted',
    });
    expect(rows).toEqual([
      {
        dimension: 'tokens',
        name: 'Tokens',
        spent: 4200,
        limit: 10_000,
        text: '4,200 / 10,000 (3,000 to children)',
        exhausted: false,
      },
      { dimension: 'model_calls', name: 'Model calls', spent: 4, limit: 4, text: '4 / 4', exhausted: true },
    ]);
    expect(budgetRows(null)).toEqual([]);
  });
});
