import type { Insertable, Selectable } from 'kysely';
import { newId } from '../../../core/ids.js';
import { passageLength } from '../../../core/knowledge/bm25.js';
import type {
  KnowledgeDocumentRepository,
  KnowledgeSearchQuery,
  NewKnowledgeChunk,
  NewKnowledgeDocument,
} from '../../../core/ports/knowledge-storage.js';
import type { KnowledgeDocument, KnowledgeHit } from '../../../core/records/knowledge.js';
import type { KnowledgeChunksTable, KnowledgeDocumentsTable } from './knowledge-tables.js';
import { atomically, nowIso, toJson, toNumber } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { searchKnowledgeChunks } from './sql-knowledge-search.js';

/** Rows per INSERT: 10 parameters each stays far below SQLite's and PostgreSQL's parameter limits. */
const CHUNK_BATCH = 500;

function documentFromRow(row: Selectable<KnowledgeDocumentsTable>): KnowledgeDocument {
  return {
    id: row.id,
    source_id: row.source_id,
    name: row.name,
    media_type: row.media_type,
    bytes: toNumber(row.bytes),
    text_chars: toNumber(row.text_chars),
    page_count: row.page_count === null ? null : toNumber(row.page_count),
    chunk_count: toNumber(row.chunk_count),
    created_at: row.created_at,
  };
}

export class SqlKnowledgeDocumentRepository implements KnowledgeDocumentRepository {
  constructor(private readonly ctx: SqlContext) {}

  async put(
    document: NewKnowledgeDocument,
    chunks: readonly NewKnowledgeChunk[],
  ): Promise<{ document: KnowledgeDocument; replaced: boolean }> {
    const wordCounts = chunks.map((chunk) => passageLength(chunk.heading_path, chunk.text));
    const row: KnowledgeDocumentsTable = {
      id: newId('kdc'),
      ...document,
      chunk_count: chunks.length,
      word_count: wordCounts.reduce((total, words) => total + words, 0),
      created_at: nowIso(this.ctx),
    };
    return atomically(this.ctx, async (db) => {
      // Two uploads of one name take turns, so the second replaces the first instead of colliding with it.
      await this.ctx.dialect.lockKey?.(db, `knowledge:${document.source_id}:${document.name}`);
      const existing = await db
        .selectFrom('knowledge_documents')
        .select('id')
        .where('source_id', '=', document.source_id)
        .where('name', '=', document.name)
        .executeTakeFirst();
      if (existing) {
        await db.deleteFrom('knowledge_chunks').where('document_id', '=', existing.id).execute();
        await db.deleteFrom('knowledge_documents').where('id', '=', existing.id).execute();
      }
      await db.insertInto('knowledge_documents').values(row).execute();
      for (let from = 0; from < chunks.length; from += CHUNK_BATCH) {
        const values: Insertable<KnowledgeChunksTable>[] = chunks
          .slice(from, from + CHUNK_BATCH)
          .map((chunk, index) => ({
            document_id: row.id,
            source_id: document.source_id,
            seq: from + index,
            text: chunk.text,
            heading_path: toJson(chunk.heading_path),
            page: chunk.page,
            start_offset: chunk.start,
            end_offset: chunk.end,
            word_count: wordCounts[from + index] ?? 0,
          }));
        await db.insertInto('knowledge_chunks').values(values).execute();
      }
      await db
        .updateTable('knowledge_sources')
        .set({ updated_at: row.created_at })
        .where('id', '=', document.source_id)
        .execute();
      return { document: documentFromRow(row), replaced: existing !== undefined };
    });
  }

  async get(id: string): Promise<KnowledgeDocument | undefined> {
    const row = await this.ctx.db
      .selectFrom('knowledge_documents')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && documentFromRow(row);
  }

  async list(sourceId: string): Promise<KnowledgeDocument[]> {
    const rows = await this.ctx.db
      .selectFrom('knowledge_documents')
      .selectAll()
      .where('source_id', '=', sourceId)
      .orderBy('name')
      .orderBy('id')
      .execute();
    return rows.map(documentFromRow);
  }

  async delete(id: string): Promise<boolean> {
    return atomically(this.ctx, async (db) => {
      await db.deleteFrom('knowledge_chunks').where('document_id', '=', id).execute();
      const result = await db.deleteFrom('knowledge_documents').where('id', '=', id).executeTakeFirst();
      return toNumber(result.numDeletedRows) > 0;
    });
  }

  async search(query: KnowledgeSearchQuery): Promise<KnowledgeHit[]> {
    const limit = Math.max(0, Math.trunc(query.limit));
    if (query.source_ids.length === 0 || query.terms.length === 0 || limit === 0) return [];
    return searchKnowledgeChunks(this.ctx, { ...query, limit });
  }
}
