import type { Selectable } from 'kysely';
import { newId } from '../../../core/ids.js';
import type { AttachmentRepository, NewAttachment } from '../../../core/ports/storage.js';
import type { Attachment } from '../../../core/records/attachment.js';
import type { AttachmentsTable } from './database-schema.js';
import { nowIso, toNumber } from './sql-context.js';
import type { SqlContext } from './sql-context.js';

function attachmentFromRow(row: Selectable<AttachmentsTable>): Attachment {
  return {
    id: row.id,
    conversation_id: row.conversation_id,
    user_id: row.user_id,
    name: row.name,
    path: row.path,
    size: toNumber(row.size),
    content_type: row.content_type,
    created_at: row.created_at,
  };
}

export class SqlAttachmentRepository implements AttachmentRepository {
  constructor(private readonly ctx: SqlContext) {}

  async create(attachment: NewAttachment): Promise<Attachment> {
    const row = await this.ctx.db
      .insertInto('attachments')
      .values({ ...attachment, id: newId('att'), created_at: nowIso(this.ctx) })
      .returningAll()
      .executeTakeFirstOrThrow();
    return attachmentFromRow(row);
  }

  async get(id: string): Promise<Attachment | undefined> {
    const row = await this.ctx.db
      .selectFrom('attachments')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row ? attachmentFromRow(row) : undefined;
  }

  async listForConversation(conversationId: string): Promise<Attachment[]> {
    const rows = await this.ctx.db
      .selectFrom('attachments')
      .selectAll()
      .where('conversation_id', '=', conversationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(attachmentFromRow);
  }
}
