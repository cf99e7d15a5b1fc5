import { sql, type Selectable } from 'kysely';
import type { RunAttemptContext } from '../../../core/ports/storage.js';
import type { DatabaseSchema } from './database-schema.js';
import { preparedQuery } from './prepared-query.js';
import type { SqlContext } from './sql-context.js';
import { agentFromRow } from './sql-agent-repository.js';
import { conversationFromRow } from './sql-conversation-repository.js';
import { projectFromRow } from './sql-project-repository.js';
import { budgetFromRow } from './sql-run-budget-repository.js';
import { userFromRow } from './sql-user-repository.js';
import {
  AGENT_COLUMNS,
  CONVERSATION_COLUMNS,
  PROJECT_COLUMNS,
  RUN_BUDGET_COLUMNS,
  USER_COLUMNS,
  type ColumnList,
} from './table-columns.js';

type Row = Record<string, unknown>;

/** One joined table: its columns, and the one that is never null in a row that exists. */
interface Part<N extends keyof DatabaseSchema> {
  table: N;
  columns: ColumnList<DatabaseSchema[N]>;
  key: keyof DatabaseSchema[N] & string;
}

const AGENT: Part<'agents'> = { table: 'agents', columns: AGENT_COLUMNS, key: 'id' };
const USER: Part<'users'> = { table: 'users', columns: USER_COLUMNS, key: 'id' };
const CONVERSATION: Part<'conversations'> = {
  table: 'conversations',
  columns: CONVERSATION_COLUMNS,
  key: 'id',
};
const PROJECT: Part<'projects'> = { table: 'projects', columns: PROJECT_COLUMNS, key: 'id' };
const BUDGET: Part<'run_budgets'> = { table: 'run_budgets', columns: RUN_BUDGET_COLUMNS, key: 'run_id' };

/** Joined tables share column names (id, created_at…): each column comes back as `"<table>.<column>"`. */
function selected<N extends keyof DatabaseSchema>(part: Part<N>) {
  return part.columns.map((column) => sql.ref(`${part.table}.${column}`).as(`${part.table}.${column}`));
}

/** The part's own row out of the joined one; undefined when the LEFT JOIN found none. */
function rowOf<N extends keyof DatabaseSchema>(
  row: Row,
  part: Part<N>,
): Selectable<DatabaseSchema[N]> | undefined {
  if (row[`${part.table}.${part.key}`] === null) return undefined;
  const own = Object.fromEntries(part.columns.map((column) => [column, row[`${part.table}.${column}`]]));
  // The columns are the table's own, checked exhaustive by table-columns.ts, with the engine's values.
  return own as Selectable<DatabaseSchema[N]>;
}

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
  const row = (await selectAttemptContextRow(ctx, { runId })).rows[0] as Row | undefined;
  if (row === undefined) {
    return {
      agent: undefined,
      user: undefined,
      conversation: undefined,
      project: undefined,
      ledger: undefined,
    };
  }
  const agent = rowOf(row, AGENT);
  const user = rowOf(row, USER);
  const conversation = rowOf(row, CONVERSATION);
  const project = rowOf(row, PROJECT);
  const ledger = rowOf(row, BUDGET);
  return {
    agent: agent && agentFromRow(agent),
    user: user && userFromRow(user),
    conversation: conversation && conversationFromRow(conversation),
    project: project && projectFromRow(project),
    ledger: ledger && budgetFromRow(ledger),
  };
}
