import type { RunBudget } from '../../../core/budgets/budget.js';
import type { ChildStartParent } from '../../../core/ports/storage.js';
import type { Conversation } from '../../../core/records/conversation.js';
import type { Run } from '../../../core/records/run.js';
import type { RunContext } from '../execute/load-run-context.js';

/**
 * The child's first attempt's context, when the start read or wrote every part of it: the agent it runs as
 * (read with the parent, `readAlso.childAgentId`), the user, the conversation it created, that conversation's
 * project (its parent's) and the ledger it opened. A continued thread's conversation was not read: none.
 */
export function firstAttemptContext(
  read: ChildStartParent | undefined,
  run: Run,
  /** The conversation the start created for the child, if it did. */
  conversation: Conversation | undefined,
  ledger: RunBudget | undefined,
): RunContext | undefined {
  const agent = read?.agent;
  const { user, project } = read ?? {};
  if (agent?.id !== run.agent_id || !user || !conversation || project?.id !== conversation.project_id)
    return undefined;
  return { agent, user, conversation, project, ledger };
}
