import type { Selectable } from 'kysely';
import { newId } from '../../../core/ids.js';
import type { ArtifactRepository, NewArtifact } from '../../../core/ports/storage.js';
import type { Artifact } from '../../../core/records/artifact.js';
import type { ArtifactsTable } from './database-schema.js';
import { atomically, nowIso, toNumber } from './sql-context.js';
import type { SqlContext } from './sql-context.js';

function artifactFromRow(row: Selectable<ArtifactsTable>): Artifact {
  return {
    id: row.id,
    run_id: row.run_id,
    conversation_id: row.conversation_id,
    user_id: row.user_id,
    tool_call_id: row.tool_call_id,
    path: row.path,
    title: row.title,
    size: toNumber(row.size),
    content_type: row.content_type,
    created_at: row.created_at,
  };
}

export class SqlArtifactRepository implements ArtifactRepository {
  constructor(private readonly ctx: SqlContext) {}

  record(artifacts: NewArtifact[]): Promise<Artifact[]> {
    if (artifacts.length === 0) return Promise.resolve([]);
    const createdAt = nowIso(this.ctx);
    return atomically(this.ctx, async (db) => {
      await db
        .insertInto('artifacts')
        .values(artifacts.map((artifact) => ({ ...artifact, id: newId('art'), created_at: createdAt })))
        .onConflict((oc) => oc.columns(['run_id', 'tool_call_id', 'path']).doNothing())
        .execute();
      const keys = new Set(artifacts.map((artifact) => `${artifact.run_id}\u0000${artifact.tool_call_id}`));
      const rows = [];
      for (const key of keys) {
        const [runId = '', toolCallId = ''] = key.split('\u0000');
        rows.push(
          ...(await db
            .selectFrom('artifacts')
            .selectAll()
            .where('run_id', '=', runId)
            .where('tool_call_id', '=', toolCallId)
            .execute()),
        );
      }
      const byKey = new Map(
        rows.map((row) => [`${row.run_id}\u0000${row.tool_call_id}\u0000${row.path}`, row]),
      );
      return artifacts.flatMap((artifact) => {
        const row = byKey.get(`${artifact.run_id}\u0000${artifact.tool_call_id}\u0000${artifact.path}`);
        return row ? [artifactFromRow(row)] : [];
      });
    });
  }

  async get(id: string): Promise<Artifact | undefined> {
    const row = await this.ctx.db.selectFrom('artifacts').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? artifactFromRow(row) : undefined;
  }

  async listForConversation(conversationId: string): Promise<Artifact[]> {
    const rows = await this.ctx.db
      .selectFrom('artifacts')
      .selectAll()
      .where('conversation_id', '=', conversationId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(artifactFromRow);
  }

  async delete(id: string): Promise<void> {
    await this.ctx.db.deleteFrom('artifacts').where('id', '=', id).execute();
  }
}
