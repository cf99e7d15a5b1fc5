import type { Selectable, Updateable } from 'kysely';
import { TroupeError } from '../../../core/errors.js';
import { newId } from '../../../core/ids.js';
import type { Conversation, ConversationStatus } from '../../../core/records/conversation.js';
import type {
  ConversationPatch,
  ConversationRepository,
  ConversationWithParts,
  NewConversation,
} from '../../../core/ports/storage.js';
import type { ConversationsTable } from './database-schema.js';
import { fromJson, nowIso, toJson, translateUniqueViolation } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { preparedQuery, preparedQueryFamily } from './prepared-query.js';
import { AGENT, CONVERSATION, PROJECT, USER, partOf, selected, type JoinedRow } from './joined-parts.js';
import { projectFromRow } from './sql-project-repository.js';
import { userFromRow } from './sql-user-repository.js';
import { agentFromRow } from './sql-agent-repository.js';
import { CONVERSATION_COLUMNS, valuesOf } from './table-columns.js';

/** Every subagent's first start creates its conversation. */
const insertConversation = preparedQuery((db, args: ConversationsTable & Record<string, unknown>) =>
  db.insertInto('conversations').values(valuesOf<ConversationsTable>(CONVERSATION_COLUMNS, args)),
);

const selectConversation = preparedQuery((db, args: { id: string }) =>
  db.selectFrom('conversations').selectAll().where('id', '=', args.id),
);

type PatchedColumn = 'title' | 'status' | 'metadata';

/**
 * An update of `updated_at` and the columns a patch sets, one prepared query per set of columns: the first
 * message of a conversation titles it, so a run start makes this update as often as conversations begin.
 */
const updateConversation = preparedQueryFamily({
  key: (columns: readonly PatchedColumn[]) => columns.join(','),
  build: (columns) => (db, args: Record<string, unknown>) => {
    const set: Record<string, unknown> = { updated_at: args.updated_at };
    for (const column of columns) set[column] = args[column];
    return db
      .updateTable('conversations')
      .set(set as Updateable<ConversationsTable>)
      .where('id', '=', args.id as string)
      .returningAll();
  },
});

export function conversationFromRow(row: Selectable<ConversationsTable>): Conversation {
  return {
    id: row.id,
    user_id: row.user_id,
    agent_id: row.agent_id,
    thread_id: row.thread_id,
    project_id: row.project_id,
    status: row.status,
    title: row.title,
    metadata: fromJson<Record<string, unknown>>(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A conversation with its agent, owner and project in one statement: every posted message reads them. */
const selectConversationWithParts = preparedQuery((db, args: { id: string }) =>
  db
    .selectFrom('conversations')
    .leftJoin('agents', 'agents.id', 'conversations.agent_id')
    .leftJoin('users', 'users.id', 'conversations.user_id')
    .leftJoin('projects', 'projects.id', 'conversations.project_id')
    .select([...selected(CONVERSATION), ...selected(AGENT), ...selected(USER), ...selected(PROJECT)])
    .where('conversations.id', '=', args.id),
);

export class SqlConversationRepository implements ConversationRepository {
  constructor(private readonly ctx: SqlContext) {}

  async create(conversation: NewConversation, id?: string): Promise<Conversation> {
    const now = nowIso(this.ctx);
    const row: ConversationsTable = {
      id: id ?? newId('cnv'),
      user_id: conversation.user_id,
      agent_id: conversation.agent_id,
      thread_id: conversation.thread_id,
      project_id: conversation.project_id,
      status: conversation.status,
      title: conversation.title,
      metadata: toJson(conversation.metadata),
      created_at: now,
      updated_at: now,
    };
    try {
      await insertConversation(this.ctx, { ...row });
    } catch (error) {
      // A duplicate thread is a caller bug or a replay; the error names the key so callers can tell.
      translateUniqueViolation(this.ctx, error, {});
    }
    return conversationFromRow(row);
  }

  async get(id: string): Promise<Conversation | undefined> {
    const row = (await selectConversation(this.ctx, { id })).rows[0];
    return row && conversationFromRow(row);
  }

  async getWithParts(id: string): Promise<ConversationWithParts | undefined> {
    const row = (await selectConversationWithParts(this.ctx, { id })).rows[0] as JoinedRow | undefined;
    const conversation = row && partOf(row, CONVERSATION, conversationFromRow);
    if (!row || !conversation) return undefined;
    return {
      conversation,
      agent: partOf(row, AGENT, agentFromRow),
      owner: partOf(row, USER, userFromRow),
      project: partOf(row, PROJECT, projectFromRow),
    };
  }

  async getByThread(threadId: string): Promise<Conversation | undefined> {
    const row = await this.ctx.db
      .selectFrom('conversations')
      .selectAll()
      .where('thread_id', '=', threadId)
      .executeTakeFirst();
    return row && conversationFromRow(row);
  }

  async listForUser(userId: string, statuses: ConversationStatus[]): Promise<Conversation[]> {
    if (statuses.length === 0) return [];
    const rows = await this.ctx.db
      .selectFrom('conversations')
      .selectAll()
      .where('user_id', '=', userId)
      .where('status', 'in', statuses)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map(conversationFromRow);
  }

  async update(id: string, patch: ConversationPatch): Promise<Conversation> {
    const args: Record<string, unknown> = { id, updated_at: nowIso(this.ctx) };
    const columns: PatchedColumn[] = [];
    if (patch.title !== undefined) columns.push('title');
    if (patch.status !== undefined) columns.push('status');
    if (patch.metadata !== undefined) columns.push('metadata');
    for (const column of columns)
      args[column] = column === 'metadata' ? toJson(patch.metadata) : patch[column];
    const row = (await updateConversation(columns)(this.ctx, args)).rows[0];
    if (row === undefined) throw new TroupeError('conversation_not_found', `Conversation ${id} not found`);
    return conversationFromRow(row);
  }
}
