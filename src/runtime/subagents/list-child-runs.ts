import { budgetView, type BudgetView } from '../../core/budgets/budget-view.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Run, RunError, TokenUsage } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import { getReadableConversation } from '../readable-conversation.js';
import { childCard, type ChildCard } from './child-card.js';
import { readProgress, type RunProgress } from './subagent-progress.js';

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
  usage: TokenUsage | null;
  /** Last change; a run back in `pending` after it started is waiting to be resumed since then. */
  updated_at: string;
  /** The child's budget (SPEC §10), live while it runs; null without one. */
  budget: BudgetView | null;
}

async function budgetOf(storage: Storage, runId: string): Promise<BudgetView | null> {
  const ledger = await storage.budgets.get(runId);
  return ledger ? budgetView(ledger) : null;
}

/** Every subagent and delegation run started from a conversation, oldest first. */
export async function listChildRuns(
  storage: Storage,
  actor: Actor,
  conversationId: string,
): Promise<ChildRunEntry[]> {
  const conversation = await getReadableConversation(storage, actor, conversationId);
  // Children of every kind are found one way: the runs each of this conversation's runs created.
  const children: Run[] = [];
  for (const parent of await storage.runs.listByConversation(conversation.id)) {
    children.push(...(await storage.runs.listChildren(parent.id)));
  }
  const agents = new Map<string, { slug: string; name: string } | undefined>();
  const entries: ChildRunEntry[] = [];
  for (const run of children.sort((a, b) => a.created_at.localeCompare(b.created_at))) {
    if (!agents.has(run.agent_id)) agents.set(run.agent_id, await storage.agents.get(run.agent_id));
    entries.push({
      ...childCard(run, agents.get(run.agent_id)),
      parent_run_id: run.created_by_run_id,
      description: run.input.message,
      progress: await readProgress(storage, run.id),
      result: run.status === 'completed' || run.error ? { output: run.output, error: run.error } : null,
      created_at: run.created_at,
      started_at: run.started_at,
      finished_at: run.finished_at,
      usage: run.usage,
      updated_at: run.updated_at,
      budget: await budgetOf(storage, run.id),
    });
  }
  return entries;
}
