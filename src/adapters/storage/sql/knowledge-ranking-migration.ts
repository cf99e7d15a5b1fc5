import { sql, SqliteAdapter } from 'kysely';
import type { Kysely, Migration } from 'kysely';
import { passageLength } from '../../../core/knowledge/bm25.js';

// Migrations must not depend on the current schema type, which describes the latest version only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented type for migrations
type AnyDb = Kysely<any>;

const BACKFILL_BATCH = 500;

/**
 * Issue 31: search statistics come from the searched sources only (core/knowledge/bm25.ts). FTS5's own
 * `bm25()` read N, the mean length and each word's document count from the whole index, so another
 * tenant's upload moved a user's scores: a word oracle. What the scoped ranking reads instead:
 * - `word_count` of each chunk (|D|) and of each document (their sum), so N and avgdl of a set of sources
 *   are one sum over its documents;
 * - SQLite: an fts5vocab `instance` table over the index, which lists a word's occurrences (chunk, column)
 *   from the word's own entry, so df and tf are counted over the searched sources' chunks alone.
 * Existing rows are counted here, with the same function new uploads use.
 */
export const knowledgeRankingMigration: Migration = {
  async up(db: AnyDb) {
    for (const table of ['knowledge_chunks', 'knowledge_documents']) {
      await db.schema
        .alterTable(table)
        .addColumn('word_count', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    }
    let after = -1;
    for (;;) {
      const rows = (await db
        .selectFrom('knowledge_chunks')
        .select(['id', 'heading_path', 'text'])
        .where('id', '>', after)
        .orderBy('id')
        .limit(BACKFILL_BATCH)
        .execute()) as { id: number | string; heading_path: string; text: string }[];
      for (const row of rows) {
        await db
          .updateTable('knowledge_chunks')
          .set({ word_count: passageLength(JSON.parse(row.heading_path) as string[], row.text) })
          .where('id', '=', row.id)
          .execute();
      }
      const last = rows.at(-1);
      if (last === undefined) break;
      after = Number(last.id);
    }
    await sql`UPDATE knowledge_documents SET word_count = (
      SELECT coalesce(sum(word_count), 0) FROM knowledge_chunks WHERE document_id = knowledge_documents.id
    )`.execute(db);
    if (db.getExecutor().adapter instanceof SqliteAdapter) {
      await sql`CREATE VIRTUAL TABLE knowledge_chunks_fts_instances
        USING fts5vocab(knowledge_chunks_fts, instance)`.execute(db);
    }
  },

  async down(db: AnyDb) {
    if (db.getExecutor().adapter instanceof SqliteAdapter) {
      await sql`DROP TABLE knowledge_chunks_fts_instances`.execute(db);
    }
    for (const table of ['knowledge_documents', 'knowledge_chunks']) {
      await db.schema.alterTable(table).dropColumn('word_count').execute();
    }
  },
};
