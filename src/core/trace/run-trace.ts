import type { BudgetView } from '../budgets/budget-view.js';
import type { RunView } from '../records/run.js';
import type { RunTimeline, UsageTotals } from './run-timeline.js';

/** One run of a trace: the run, how it hangs in the tree, its timed spans and its token totals. */
export interface TraceNode {
  run: RunView;
  agent: { id: string; slug: string | null; name: string | null };
  /** What the console shows: the inline spec's name, the agent's name, or its id. */
  display_name: string;
  parent_run_id: string | null;
  /** Oldest first. */
  child_run_ids: string[];
  timeline: RunTimeline;
  totals: { own: UsageTotals; children: UsageTotals; subtree: UsageTotals };
  /** The run's budget (docs/budgets.md): limits, used, carved, remaining; null without one. */
  budget: BudgetView | null;
}

/** `GET /api/agent/runs/{id}/trace`: the whole tree of `{id}`'s root, depth first, parents before children. */
export interface RunTrace {
  root_run_id: string;
  run_id: string;
  generated_at: string;
  nodes: TraceNode[];
}
