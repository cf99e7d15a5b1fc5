import { budgetView, type BudgetView } from '../../../core/budgets/budget-view.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { RunError, TokenUsage, WorkerLost } from '../../../core/records/run.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import type { Actor } from '../../../core/records/user.js';
import { verdictSummary, type VerdictSummary } from '../../../core/verification/verification.js';
import { getReadableConversation } from '../../conversations/readable-conversation.js';
import type { RunViews } from '../inspect/run-views.js';
import { childCard, type ChildCard } from './child-card.js';
import { PROGRESS_WINDOW, summariseProgress, type RunProgress } from './subagent-progress.js';

/** One card of the console's status panel. */
export interface ChildRunEntry extends ChildCard {
  parent_run_id: string | null;
  /** The task as the parent wrote it: the child's input message. */
  description: string;
  progress: RunProgress;
  result: { output: string | null; error: RunError | null } | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Live while it runs (docs/usage.md); null until it first started. */
  usage: TokenUsage | null;
  /** Last change; a run back in `pending` after it started is waiting to be resumed since then. */
  updated_at: string;
  /** Set while an expired lease holds it: nothing works on it until a takeover. */
  worker_lost: WorkerLost | null;
  /** The child's budget (docs/budgets.md), live while it runs; null without one. */
  budget: BudgetView | null;
  /** The verdict stored when it was judged (docs/verified-delegation.md); null when it was not. */
  verification: VerdictSummary | null;
}

/**
 * Every subagent and delegation run started from a conversation, oldest first. A fixed number of reads
 * however many children and turns there are: the children, their latest events, their ledgers, their verdicts
 * and the active ones' settled usage in one statement each, and each distinct agent once.
 */
export async function listChildRuns(
  storage: Storage,
  views: RunViews,
  actor: Actor,
  conversationId: string,
): Promise<ChildRunEntry[]> {
  const conversation = await getReadableConversation(storage, actor, conversationId);
  const children = await views.withLiveUsage(await storage.runs.listChildrenInConversation(conversation.id));
  const ids = children.map((run) => run.id);
  const eventsOf = new Map<string, RunEvent[]>();
  for (const event of await storage.events.listLatest(ids, PROGRESS_WINDOW)) {
    const list = eventsOf.get(event.run_id);
    if (list) list.push(event);
    else eventsOf.set(event.run_id, [event]);
  }
  const [ledgerList, verdictList] = await Promise.all([
    storage.budgets.getMany(ids),
    storage.verifications.getMany(ids),
  ]);
  const ledgers = new Map(ledgerList.map((ledger) => [ledger.run_id, ledger]));
  const verdicts = new Map(verdictList.map((stored) => [stored.run_id, verdictSummary(stored.verification)]));
  const agents = new Map<string, { slug: string; name: string } | undefined>();
  const entries: ChildRunEntry[] = [];
  for (const run of children) {
    if (!agents.has(run.agent_id)) agents.set(run.agent_id, await storage.agents.get(run.agent_id));
    const ledger = ledgers.get(run.id);
    entries.push({
      ...childCard(run, agents.get(run.agent_id)),
      parent_run_id: run.created_by_run_id,
      description: run.input.message,
      progress: summariseProgress(eventsOf.get(run.id) ?? []),
      result: run.status === 'completed' || run.error ? { output: run.output, error: run.error } : null,
      created_at: run.created_at,
      started_at: run.started_at,
      finished_at: run.finished_at,
      usage: run.usage,
      updated_at: run.updated_at,
      worker_lost: views.workerLost(run),
      budget: ledger ? budgetView(ledger) : null,
      verification: verdicts.get(run.id) ?? null,
    });
  }
  return entries;
}
