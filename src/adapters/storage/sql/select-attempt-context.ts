import type { RunAttemptContext } from '../../../core/ports/storage.js';
import { preparedQuery } from './prepared-query.js';
import type { SqlContext } from './sql-context.js';
import { agentFromRow } from './sql-agent-repository.js';
import { conversationFromRow } from './sql-conversation-repository.js';
import { projectFromRow } from './sql-project-repository.js';
import { budgetFromRow } from './sql-run-budget-repository.js';
import { userFromRow } from './sql-user-repository.js';
import {
  AGENT,
  BUDGET,
  CONVERSATION,
  PROJECT,
  USER,
  partOf,
  selected,
  type JoinedRow,
} from './joined-parts.js';

/**
 * The run's agent, user, conversation, project and ledger in one statement instead of five: every attempt
 * reads them. LEFT JOINs, so a missing row leaves its part undefined instead of losing the others.
 */
const selectAttemptContextRow = preparedQuery((db, args: { runId: string }) =>
  db
    .selectFrom('runs')
    .leftJoin('agents', 'agents.id', 'runs.agent_id')
    .leftJoin('users', 'users.id', 'runs.user_id')
    .leftJoin('conversations', 'conversations.id', 'runs.conversation_id')
    .leftJoin('projects', 'projects.id', 'conversations.project_id')
    .leftJoin('run_budgets', 'run_budgets.run_id', 'runs.id')
    .select([
      ...selected(AGENT),
      ...selected(USER),
      ...selected(CONVERSATION),
      ...selected(PROJECT),
      ...selected(BUDGET),
    ])
    .where('runs.id', '=', args.runId),
);

export async function selectAttemptContext(ctx: SqlContext, runId: string): Promise<RunAttemptContext> {
  const row = (await selectAttemptContextRow(ctx, { runId })).rows[0] as JoinedRow | undefined;
  if (row === undefined) {
    return {
      agent: undefined,
      user: undefined,
      conversation: undefined,
      project: undefined,
      ledger: undefined,
    };
  }
  return {
    agent: partOf(row, AGENT, agentFromRow),
    user: partOf(row, USER, userFromRow),
    conversation: partOf(row, CONVERSATION, conversationFromRow),
    project: partOf(row, PROJECT, projectFromRow),
    ledger: partOf(row, BUDGET, budgetFromRow),
  };
}
