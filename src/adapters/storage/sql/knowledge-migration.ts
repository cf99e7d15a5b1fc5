import { sql, SqliteAdapter } from 'kysely';
import type { Kysely, Migration } from 'kysely';

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

function isSqlite(db: AnyDb): boolean {
  return db.getExecutor().adapter instanceof SqliteAdapter;
}

/**
 * Knowledge sources, their grants, documents and chunks (issue 13, docs/skills-and-knowledge.md). The tables are shared; the
 * full-text index is the one engine-specific part of the schema:
 * - SQLite: an FTS5 table over the chunks (external content, so the text is stored once), kept in step by
 *   triggers and keyed on the chunk's INTEGER PRIMARY KEY, which VACUUM never renumbers;
 * - PostgreSQL: a generated `tsvector` column (headings weighted A, text B) with a GIN index.
 * Both stem English words (porter / the `english` configuration).
 */
export const knowledgeMigration: Migration = {
  async up(db: AnyDb) {
    const sqlite = isSqlite(db);
    await db.schema
      .createTable('knowledge_sources')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('visibility', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('knowledge_sources_name_uq')
      .unique()
      .on('knowledge_sources')
      .column('name')
      .execute();
    await db.schema
      .createIndex('knowledge_sources_owner_idx')
      .on('knowledge_sources')
      .column('owner_id')
      .execute();

    await db.schema
      .createTable('knowledge_access')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
      .addColumn('source_id', 'text', (c) => c.notNull().references('knowledge_sources.id'))
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('knowledge_access_pkey', ['user_id', 'source_id'])
      .execute();
    await db.schema
      .createIndex('knowledge_access_source_idx')
      .on('knowledge_access')
      .column('source_id')
      .execute();

    await db.schema
      .createTable('knowledge_documents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('source_id', 'text', (c) => c.notNull().references('knowledge_sources.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('media_type', 'text', (c) => c.notNull())
      .addColumn('bytes', 'integer', (c) => c.notNull())
      .addColumn('text_chars', 'integer', (c) => c.notNull())
      .addColumn('page_count', 'integer')
      .addColumn('chunk_count', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('knowledge_documents_source_name_uq')
      .unique()
      .on('knowledge_documents')
      .columns(['source_id', 'name'])
      .execute();

    await db.schema
      .createTable('knowledge_chunks')
      .addColumn('id', 'integer', (c) =>
        sqlite ? c.primaryKey() : c.primaryKey().generatedByDefaultAsIdentity(),
      )
      .addColumn('document_id', 'text', (c) => c.notNull().references('knowledge_documents.id'))
      .addColumn('source_id', 'text', (c) => c.notNull().references('knowledge_sources.id'))
      .addColumn('seq', 'integer', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('heading_path', 'text', (c) => c.notNull())
      .addColumn('page', 'integer')
      .addColumn('start_offset', 'integer', (c) => c.notNull())
      .addColumn('end_offset', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('knowledge_chunks_document_seq_uq')
      .unique()
      .on('knowledge_chunks')
      .columns(['document_id', 'seq'])
      .execute();
    await db.schema
      .createIndex('knowledge_chunks_source_idx')
      .on('knowledge_chunks')
      .column('source_id')
      .execute();

    if (sqlite) {
      await sql`CREATE VIRTUAL TABLE knowledge_chunks_fts USING fts5(
        heading_path, text,
        content='knowledge_chunks', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2'
      )`.execute(db);
      await sql`CREATE TRIGGER knowledge_chunks_fts_insert AFTER INSERT ON knowledge_chunks BEGIN
        INSERT INTO knowledge_chunks_fts(rowid, heading_path, text) VALUES (new.id, new.heading_path, new.text);
      END`.execute(db);
      await sql`CREATE TRIGGER knowledge_chunks_fts_delete AFTER DELETE ON knowledge_chunks BEGIN
        INSERT INTO knowledge_chunks_fts(knowledge_chunks_fts, rowid, heading_path, text)
          VALUES ('delete', old.id, old.heading_path, old.text);
      END`.execute(db);
      // Chunks are never updated in place (a new upload replaces them), so no UPDATE trigger is needed.
    } else {
      await sql`ALTER TABLE knowledge_chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english'::regconfig, heading_path), 'A') ||
        setweight(to_tsvector('english'::regconfig, text), 'B')
      ) STORED`.execute(db);
      await sql`CREATE INDEX knowledge_chunks_tsv_idx ON knowledge_chunks USING GIN (tsv)`.execute(db);
    }
  },

  async down(db: AnyDb) {
    if (isSqlite(db)) await sql`DROP TABLE knowledge_chunks_fts`.execute(db);
    for (const table of [
      'knowledge_chunks',
      'knowledge_documents',
      'knowledge_access',
      'knowledge_sources',
    ]) {
      await db.schema.dropTable(table).execute();
    }
  },
};
