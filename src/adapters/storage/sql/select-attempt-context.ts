import type { Run } from '../../../core/records/run.js';
import type { RunAttemptContext } from '../../../core/ports/storage.js';
import { preparedQuery } from './prepared-query.js';
import type { SqlContext } from './sql-context.js';
import { agentFromRow } from './sql-agent-repository.js';
import { conversationFromRow } from './sql-conversation-repository.js';
import { projectFromRow } from './sql-project-repository.js';
import { budgetFromRow } from './sql-run-budget-repository.js';
import { claimRun, claimUpdate, type ClaimArgs } from './sql-run-hot-queries.js';
import { runFromRow } from './run-from-row.js';
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

/** The parts of an attempt's context, as `"<table>.<column>"`. */
const CONTEXT_COLUMNS = [
  ...selected(AGENT),
  ...selected(USER),
  ...selected(CONVERSATION),
  ...selected(PROJECT),
  ...selected(BUDGET),
];

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
    .select(CONTEXT_COLUMNS)
    .where('runs.id', '=', args.runId),
);

/**
 * The claim (`claimUpdate`) and the claimed run's context in one statement, the same joins on the row the
 * claim returns: PostgreSQL only, SQLite has no UPDATE in a WITH.
 */
const claimWithContextRow = preparedQuery((db, args: ClaimArgs) =>
  db
    .with('claimed', (qb) => claimUpdate(qb, args))
    .selectFrom('claimed')
    .leftJoin('agents', 'agents.id', 'claimed.agent_id')
    .leftJoin('users', 'users.id', 'claimed.user_id')
    .leftJoin('conversations', 'conversations.id', 'claimed.conversation_id')
    .leftJoin('projects', 'projects.id', 'conversations.project_id')
    .leftJoin('run_budgets', 'run_budgets.run_id', 'claimed.id')
    .selectAll('claimed')
    .select(CONTEXT_COLUMNS),
);

function contextOf(row: JoinedRow): RunAttemptContext {
  return {
    agent: partOf(row, AGENT, agentFromRow),
    user: partOf(row, USER, userFromRow),
    conversation: partOf(row, CONVERSATION, conversationFromRow),
    project: partOf(row, PROJECT, projectFromRow),
    ledger: partOf(row, BUDGET, budgetFromRow),
  };
}

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
  return contextOf(row);
}

/** `claimUpdate` and `selectAttemptContext` of the claimed run: one statement on PostgreSQL, two on SQLite. */
export async function claimWithContext(
  ctx: SqlContext,
  args: ClaimArgs,
): Promise<{ run: Run; context: RunAttemptContext } | undefined> {
  if (ctx.dialect.name === 'sqlite') {
    const [claimed] = (await claimRun(ctx, args)).rows;
    return claimed && { run: runFromRow(claimed), context: await selectAttemptContext(ctx, args.id) };
  }
  const row = (await claimWithContextRow(ctx, args)).rows[0];
  return row && { run: runFromRow(row), context: contextOf(row) };
}
