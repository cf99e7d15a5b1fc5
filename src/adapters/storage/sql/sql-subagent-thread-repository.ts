import type { Selectable } from 'kysely';
import { newId } from '../../../core/ids.js';
import type { SubagentThread } from '../../../core/records/conversation.js';
import type { NewSubagentThread, SubagentThreadRepository } from '../../../core/ports/storage.js';
import type { SubagentThreadsTable } from './database-schema.js';
import { nowIso, translateUniqueViolation } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { selectByIds } from './select-by-ids.js';
import { preparedQuery } from './prepared-query.js';
import { SUBAGENT_THREAD_COLUMNS, valuesOf } from './table-columns.js';

/** Every subagent's first start records its thread: one prepared insert and one prepared look-up. */
const insertRelation = preparedQuery((db, args: SubagentThreadsTable & Record<string, unknown>) =>
  db.insertInto('subagent_threads').values(valuesOf<SubagentThreadsTable>(SUBAGENT_THREAD_COLUMNS, args)),
);

const selectByChildThread = preparedQuery((db, args: { childThreadId: string }) =>
  db.selectFrom('subagent_threads').selectAll().where('child_thread_id', '=', args.childThreadId),
);

export function subagentThreadFromRow(row: Selectable<SubagentThreadsTable>): SubagentThread {
  return {
    id: row.id,
    user_id: row.user_id,
    parent_conversation_id: row.parent_conversation_id,
    child_conversation_id: row.child_conversation_id,
    child_thread_id: row.child_thread_id,
    subagent_slug: row.subagent_slug,
    created_by_run_id: row.created_by_run_id,
    created_at: row.created_at,
  };
}

export class SqlSubagentThreadRepository implements SubagentThreadRepository {
  constructor(private readonly ctx: SqlContext) {}

  async create(relation: NewSubagentThread, id = newId('rel')): Promise<SubagentThread> {
    const row: SubagentThreadsTable = {
      id,
      user_id: relation.user_id,
      parent_conversation_id: relation.parent_conversation_id,
      child_conversation_id: relation.child_conversation_id,
      child_thread_id: relation.child_thread_id,
      subagent_slug: relation.subagent_slug,
      created_by_run_id: relation.created_by_run_id,
      created_at: nowIso(this.ctx),
    };
    try {
      await insertRelation(this.ctx, { ...row });
    } catch (error) {
      // A duplicate thread is a caller bug or a replay; the error names the key so callers can tell.
      translateUniqueViolation(this.ctx, error, {});
    }
    return subagentThreadFromRow(row);
  }

  async get(id: string): Promise<SubagentThread | undefined> {
    const row = await this.ctx.db
      .selectFrom('subagent_threads')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && subagentThreadFromRow(row);
  }

  async getMany(ids: readonly string[]): Promise<SubagentThread[]> {
    const rows = await selectByIds(ids, (chunk) =>
      this.ctx.db.selectFrom('subagent_threads').selectAll().where('id', 'in', chunk).execute(),
    );
    return rows.map(subagentThreadFromRow);
  }

  async getByChildThread(childThreadId: string): Promise<SubagentThread | undefined> {
    const row = (await selectByChildThread(this.ctx, { childThreadId })).rows[0];
    return row && subagentThreadFromRow(row);
  }

  async listForParent(parentConversationId: string): Promise<SubagentThread[]> {
    const rows = await this.ctx.db
      .selectFrom('subagent_threads')
      .selectAll()
      .where('parent_conversation_id', '=', parentConversationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(subagentThreadFromRow);
  }
}
