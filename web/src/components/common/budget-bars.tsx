import type { BudgetView } from '../../api/types.ts';
import { budgetRows } from '../../lib/budget-rows.ts';

/** Used / limit of each limited dimension of a run's budget, as meters; nothing for a run without one. */
export function BudgetBars({ budget, label }: { budget: BudgetView | null | undefined; label: string }) {
  const rows = budgetRows(budget);
  if (rows.length === 0) return null;
  return (
    <ul className="budget-bars" aria-label={`${label} budget`}>
      {rows.map((row) => (
        <li
          key={row.dimension}
          data-dimension={row.dimension}
          data-exhausted={row.exhausted ? 'true' : undefined}
        >
          <span className="budget-name">{row.name}</span>
          <meter
            min={0}
            max={row.limit}
            value={Math.min(row.spent, row.limit)}
            aria-label={`${row.name} ${row.text}`}
          />
          <span className="budget-figure">{row.text}</span>
        </li>
      ))}
    </ul>
  );
}
