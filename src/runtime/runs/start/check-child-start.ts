import { childRunRequestId } from '../../../core/ids.js';
import type { ChildStartParent, Storage } from '../../../core/ports/storage.js';
import type { Agent } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import { depthRefusal, quotaRefusal } from '../../../core/runs/child-run-limits.js';
import { parentRefusal } from '../../../core/runs/child-run-parent.js';
import { effectiveLimits } from '../../agents/agent-limits.js';
import { reserveChildBudget } from '../../budgets/open-run-budget.js';
import { isRefused, refused, type Refused } from './child-run-refusal.js';
import type { ChildHome, ChildRunDeps, ChildRunScope, ChildRunSpec } from './child-run-spec.js';

/** The child's parent as read for its start, with the names a start that fails after this step still needs. */
export interface IdentifiedChildStart {
  read: ChildStartParent | undefined;
  parent: Run | undefined;
  /** The child's thread; a `run_busy` rollback answers `busy` for it. */
  threadId: string;
  /** The child's deterministic request id, when a parent's tool call starts it: a replay is found by it. */
  requestId: string | undefined;
}

/** What the checks read and decided: everything the child's rows are written from. */
export interface CheckedChildStart extends IdentifiedChildStart {
  scope: ChildRunScope;
  agent: Agent;
  /** The budget reserved on the parent, opened once the child's run exists; none at the top. */
  ledger: Exclude<Awaited<ReturnType<typeof reserveChildBudget>>, { refused: string }> | undefined;
  home: ChildHome;
}

/**
 * Reads the parent with its child quotas in one read and names the child. On SQLite the transaction holds the
 * write lock, so the counts cannot move before the insert; on PostgreSQL, reading them a few statements later
 * would not close the window between the count and the insert either.
 */
export async function identifyChildStart(
  tx: Storage,
  spec: ChildRunSpec,
): Promise<IdentifiedChildStart | Refused> {
  const also = spec.readAlso;
  const read =
    spec.parentRunId === undefined
      ? undefined
      : await tx.runs.getWithActiveChildren(spec.parentRunId, spec.userId, {
          agentId: also?.childAgentId,
          childThreadId: also?.childThreadId,
        });
  const parent = read?.run;
  const parentRefused =
    spec.parentRunId === undefined
      ? undefined
      : parentRefusal(spec.kind, parent, spec.userId, {
          stoppedAbove: read?.stoppedAbove === true,
          byToolCall: spec.toolCallId !== undefined,
        });
  if (parentRefused !== undefined) return refused(parentRefused);
  const threadId = spec.threadId(parent);
  // No look-up of the request id first: a new run's insert proves it unused (a unique key). A replay (a
  // resumed parent calling its tools again) fails that insert, or is refused before it, and is answered
  // after the transaction.
  const requestId =
    parent && spec.toolCallId !== undefined
      ? childRunRequestId(parent.id, spec.requestScope(threadId), spec.toolCallId)
      : undefined;
  return { read, parent, threadId, requestId };
}

/** The rules in their order: the kind's agent, depth, the kind's chain rule, quotas, budget, then the home. */
export async function checkChildStart(
  tx: Storage,
  deps: ChildRunDeps,
  spec: ChildRunSpec,
  identified: IdentifiedChildStart,
): Promise<CheckedChildStart | Refused> {
  const { read, parent, threadId } = identified;
  const also = spec.readAlso;
  const limitsAgentId = parent?.agent_id ?? spec.limitsAgentId;
  const limitsAgent =
    limitsAgentId === undefined
      ? undefined
      : spec.creator?.agent?.id === limitsAgentId
        ? spec.creator.agent
        : await tx.agents.get(limitsAgentId);
  const scope: ChildRunScope = {
    tx,
    parent,
    parentConversation: read?.conversation,
    relationOf: async (id) =>
      read?.relation !== undefined && id === also?.childThreadId
        ? (read.relation ?? undefined)
        : tx.subagentThreads.getByChildThread(id),
    threadId,
    limits: effectiveLimits(deps.limits, limitsAgent?.config ?? {}),
  };
  const agent = await spec.agent(scope);
  if (isRefused(agent)) return agent;
  const ruled = depthRefusal(spec.kind, parent, scope.limits) ?? (await spec.verify?.(scope, agent));
  if (ruled !== undefined) return refused(ruled);
  if (read) {
    const overQuota = quotaRefusal(spec.kind, read.activeChildren, scope.limits);
    if (overQuota !== undefined) return refused(overQuota);
  }
  const ledger = parent
    ? await reserveChildBudget(tx, {
        parentRunId: parent.id,
        parentHasLedger: spec.creator?.hasLedger,
        requested: spec.budget,
        agentBudget: agent.config.budget,
        share: scope.limits.childBudgetShare,
        now: new Date(),
      })
    : undefined;
  if (ledger && 'refused' in ledger) return refused(ledger.refused, ledger.refusal);
  const home = await spec.home(scope, agent);
  if (isRefused(home)) return home;
  return { ...identified, scope, agent, ledger, home };
}
