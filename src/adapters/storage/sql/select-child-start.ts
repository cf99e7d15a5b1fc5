import { sql, type Selectable } from 'kysely';
import type { ChildStartAlso, ChildStartParent } from '../../../core/ports/storage.js';
import type { RunsTable } from './database-schema.js';
import {
  AGENT,
  CONVERSATION,
  PROJECT,
  SUBAGENT_THREAD,
  USER,
  partOf,
  selectedSql,
  type JoinedRow,
} from './joined-parts.js';
import { preparedQueryFamily } from './prepared-query.js';
import { agentFromRow } from './sql-agent-repository.js';
import type { SqlContext } from './sql-context.js';
import { toNumber } from './sql-context.js';
import { conversationFromRow } from './sql-conversation-repository.js';
import { ACTIVE_STATUSES, lineageChain } from './sql-run-hot-queries.js';
import { projectFromRow } from './sql-project-repository.js';
import { runFromRow } from './run-from-row.js';
import { subagentThreadFromRow } from './sql-subagent-thread-repository.js';
import { userFromRow } from './sql-user-repository.js';

type Row = Selectable<RunsTable> & {
  active_of_run: number | string;
  active_of_user: number | string;
  stopped_above: number | string;
};

interface Shape {
  agent: boolean;
  relation: boolean;
}

/** The statement's arguments: the parent, the user, and what `also` names. */
interface Args extends Record<string, unknown> {
  id: string;
  userId: string;
  agentId: string | undefined;
  childThreadId: string | undefined;
}

/**
 * A start's parent with its two child quotas, the stop check above it, the records the child's first attempt
 * works with (the parent's conversation and project, the user, and when asked the child's agent) and when
 * asked the child thread's relation: one statement instead of four. Each count reads through an index:
 * runs_created_by_idx (partial), runs_user_active_children_idx (partial, covering); the joins are primary or
 * unique keys (runs-index-plans.test.ts).
 */
const selectChildStart = preparedQueryFamily<Shape, Args, Row>({
  key: ({ agent, relation }) => `${agent}|${relation}`,
  build:
    ({ agent, relation }) =>
    (_db, args, dialect) =>
      sql<Row>`
      ${lineageChain(dialect, args.id)}
      SELECT parent.*,
        (SELECT COUNT(*) FROM runs WHERE status IN (${ACTIVE_STATUSES}) AND created_by_run_id = parent.id) AS active_of_run,
        (SELECT COUNT(*) FROM runs
          WHERE status IN (${ACTIVE_STATUSES}) AND user_id = ${args.userId} AND created_by_run_id IS NOT NULL) AS active_of_user,
        (SELECT COUNT(*) FROM chain WHERE hop > 0 AND status IN ('cancel_requested', 'cancelled')) AS stopped_above,
        ${selectedSql(CONVERSATION)}, ${selectedSql(PROJECT)}, ${selectedSql(USER)}
        ${agent ? sql`, ${selectedSql(AGENT)}` : sql``}
        ${relation ? sql`, ${selectedSql(SUBAGENT_THREAD)}` : sql``}
      FROM runs AS parent
      LEFT JOIN conversations ON conversations.id = parent.conversation_id
      LEFT JOIN projects ON projects.id = conversations.project_id
      LEFT JOIN users ON users.id = ${args.userId}
      ${agent ? sql`LEFT JOIN agents ON agents.id = ${args.agentId}` : sql``}
      ${relation ? sql`LEFT JOIN subagent_threads ON subagent_threads.child_thread_id = ${args.childThreadId}` : sql``}
      WHERE parent.id = ${args.id}`,
});

export async function selectChildStartParent(
  ctx: SqlContext,
  id: string,
  userId: string,
  also: ChildStartAlso,
): Promise<ChildStartParent | undefined> {
  const shape = { agent: also.agentId !== undefined, relation: also.childThreadId !== undefined };
  const args = { id, userId, agentId: also.agentId, childThreadId: also.childThreadId };
  const [row] = (await selectChildStart(shape)(ctx, args)).rows;
  if (!row) return undefined;
  const joined = row as unknown as JoinedRow;
  const read: ChildStartParent = {
    run: runFromRow(row),
    activeChildren: { ofRun: toNumber(row.active_of_run), ofUser: toNumber(row.active_of_user) },
    stoppedAbove: toNumber(row.stopped_above) > 0,
    conversation: partOf(joined, CONVERSATION, conversationFromRow),
    project: partOf(joined, PROJECT, projectFromRow),
    user: partOf(joined, USER, userFromRow),
  };
  if (shape.agent) read.agent = partOf(joined, AGENT, agentFromRow);
  if (shape.relation) read.relation = partOf(joined, SUBAGENT_THREAD, subagentThreadFromRow) ?? null;
  return read;
}
