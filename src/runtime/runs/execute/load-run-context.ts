import { canUseAgent, grantDecides } from '../../../core/agent-access-policy.js';
import type { RunBudget } from '../../../core/budgets/budget.js';
import { TroupeError } from '../../../core/errors.js';
import type { RunAttemptContext, Storage } from '../../../core/ports/storage.js';
import type { Agent } from '../../../core/records/agent.js';
import type { Conversation } from '../../../core/records/conversation.js';
import type { Project } from '../../../core/records/project.js';
import type { Run } from '../../../core/records/run.js';
import type { User } from '../../../core/records/user.js';

/** What a claimed run works with, read once per attempt and handed to every part that needs it. */
export interface RunContext {
  /** The run's own agent (an inline subagent run resolves its spec from it afterwards). */
  agent: Agent;
  user: User;
  conversation: Conversation;
  project: Project;
  /** The run's budget ledger (docs/budgets.md); none for a run without a budget. */
  ledger: RunBudget | undefined;
}

/**
 * Loads a run's context in one statement, plus the grant only when it decides. Visibility is recomputed on
 * every attempt (docs/records-and-access.md): a revoked grant stops the next run, not only new chats. `known` is the context
 * the run's creator read in the transaction that created it (`RunHandoffs`), or the claim read with it
 * (`runs.claimWithContext`), checked the same way.
 */
export async function loadRunContext(
  storage: Storage,
  run: Run,
  known?: RunAttemptContext,
): Promise<RunContext> {
  const { agent, user, conversation, project, ledger } = known ?? (await storage.runs.attemptContext(run.id));
  if (!agent || !user) throw new TroupeError('agent_not_found', 'The agent or its user no longer exists');
  const hasGrant = grantDecides(user, agent) && (await storage.access.has(run.user_id, run.agent_id));
  if (!canUseAgent(user, agent, hasGrant)) {
    throw new TroupeError('agent_not_found', `Agent ${agent.slug} is not available to this user`);
  }
  if (!conversation || !project) throw new TroupeError('project_not_found', 'The run has no project workdir');
  return { agent, user, conversation, project, ledger };
}
