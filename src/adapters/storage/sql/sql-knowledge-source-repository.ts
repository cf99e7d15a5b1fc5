import type { ExpressionBuilder, Selectable } from 'kysely';
import { TroupeError } from '../../../core/errors.js';
import { newId } from '../../../core/ids.js';
import type {
  KnowledgeSourceFilter,
  KnowledgeSourcePatch,
  KnowledgeSourceRepository,
  NewKnowledgeSource,
} from '../../../core/ports/knowledge-storage.js';
import type { KnowledgeSource } from '../../../core/records/knowledge.js';
import type { Actor } from '../../../core/records/user.js';
import { isAdmin } from '../../../core/records/user.js';
import type { DatabaseSchema } from './database-schema.js';
import type { KnowledgeSourcesTable } from './knowledge-tables.js';
import { atomically, nowIso, toNumber, translateUniqueViolation } from './sql-context.js';
import type { SqlContext } from './sql-context.js';

type SourceRow = Selectable<KnowledgeSourcesTable> & {
  document_count: string | number | bigint | null;
  chunk_count: string | number | bigint | null;
};

function sourceFromRow(row: SourceRow): KnowledgeSource {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    owner_id: row.owner_id,
    visibility: row.visibility,
    document_count: toNumber(row.document_count),
    chunk_count: toNumber(row.chunk_count),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function nameTaken(name: string) {
  return {
    knowledge_sources_name_uq: () =>
      new TroupeError('knowledge_source_name_taken', `The knowledge source name "${name}" is already taken`),
  };
}

/** Document and chunk counts, computed in the same statement as the source rows. */
function withCounts(eb: ExpressionBuilder<DatabaseSchema, 'knowledge_sources'>) {
  return [
    eb
      .selectFrom('knowledge_documents')
      .select((inner) => inner.fn.countAll().as('n'))
      .whereRef('knowledge_documents.source_id', '=', 'knowledge_sources.id')
      .as('document_count'),
    eb
      .selectFrom('knowledge_documents')
      .select((inner) => inner.fn.sum<string | number>('knowledge_documents.chunk_count').as('n'))
      .whereRef('knowledge_documents.source_id', '=', 'knowledge_sources.id')
      .as('chunk_count'),
  ];
}

export class SqlKnowledgeSourceRepository implements KnowledgeSourceRepository {
  constructor(private readonly ctx: SqlContext) {}

  private select() {
    return this.ctx.db
      .selectFrom('knowledge_sources')
      .selectAll('knowledge_sources')
      .select((eb) => withCounts(eb));
  }

  async create(source: NewKnowledgeSource): Promise<KnowledgeSource> {
    const now = nowIso(this.ctx);
    const row: KnowledgeSourcesTable = {
      id: newId('kns'),
      name: source.name,
      description: source.description,
      owner_id: source.owner_id,
      visibility: source.visibility,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.ctx.db.insertInto('knowledge_sources').values(row).execute();
    } catch (error) {
      translateUniqueViolation(this.ctx, error, nameTaken(source.name));
    }
    return sourceFromRow({ ...row, document_count: 0, chunk_count: 0 });
  }

  async get(id: string): Promise<KnowledgeSource | undefined> {
    const row = await this.select().where('knowledge_sources.id', '=', id).executeTakeFirst();
    return row && sourceFromRow(row);
  }

  async getByName(name: string): Promise<KnowledgeSource | undefined> {
    const row = await this.select().where('knowledge_sources.name', '=', name).executeTakeFirst();
    return row && sourceFromRow(row);
  }

  async update(id: string, patch: KnowledgeSourcePatch): Promise<KnowledgeSource> {
    const values: Partial<KnowledgeSourcesTable> = { updated_at: nowIso(this.ctx) };
    if (patch.description !== undefined) values.description = patch.description;
    if (patch.visibility !== undefined) values.visibility = patch.visibility;
    const result = await this.ctx.db
      .updateTable('knowledge_sources')
      .set(values)
      .where('id', '=', id)
      .executeTakeFirst();
    if (toNumber(result.numUpdatedRows) === 0) {
      throw new TroupeError('knowledge_source_not_found', `Knowledge source ${id} not found`);
    }
    const updated = await this.get(id);
    if (!updated) throw new TroupeError('knowledge_source_not_found', `Knowledge source ${id} not found`);
    return updated;
  }

  async delete(id: string): Promise<boolean> {
    return atomically(this.ctx, async (db) => {
      // Children first: the foreign keys point up. The FTS5 delete trigger unindexes each chunk.
      await db.deleteFrom('knowledge_chunks').where('source_id', '=', id).execute();
      await db.deleteFrom('knowledge_documents').where('source_id', '=', id).execute();
      await db.deleteFrom('knowledge_access').where('source_id', '=', id).execute();
      const result = await db.deleteFrom('knowledge_sources').where('id', '=', id).executeTakeFirst();
      return toNumber(result.numDeletedRows) > 0;
    });
  }

  async listUsable(actor: Actor, filter: KnowledgeSourceFilter = {}): Promise<KnowledgeSource[]> {
    const restricted = filter.ids !== undefined || filter.names !== undefined;
    const ids = filter.ids ?? [];
    const names = filter.names ?? [];
    // `in ()` is not SQL; an explicit empty list simply matches nothing.
    if (restricted && ids.length === 0 && names.length === 0) return [];
    let query = this.select();
    if (restricted) {
      query = query.where((eb) =>
        eb.or([
          ...(ids.length > 0 ? [eb('knowledge_sources.id', 'in', [...ids])] : []),
          ...(names.length > 0 ? [eb('knowledge_sources.name', 'in', [...names])] : []),
        ]),
      );
    }
    if (!isAdmin(actor)) {
      query = query.where((eb) =>
        eb.or([
          eb('knowledge_sources.owner_id', '=', actor.id),
          eb('knowledge_sources.visibility', '=', 'public'),
          eb.exists(
            eb
              .selectFrom('knowledge_access')
              .select(eb.lit(1).as('granted'))
              .where('knowledge_access.user_id', '=', actor.id)
              .whereRef('knowledge_access.source_id', '=', 'knowledge_sources.id'),
          ),
        ]),
      );
    }
    const rows = await query.orderBy('knowledge_sources.name').orderBy('knowledge_sources.id').execute();
    return rows.map(sourceFromRow);
  }
}
