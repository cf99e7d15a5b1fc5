import type { Generated } from 'kysely';
import type { KnowledgeAccess, KnowledgeDocument, KnowledgeSource } from '../../../core/records/knowledge.js';
import type { SqlRow } from './sql-row.js';

/*
 * Kysely row types of the knowledge tables (migration 0006_knowledge). The full-text index is not listed:
 * it is engine-specific (an FTS5 table on SQLite, a generated `tsv` column on PostgreSQL) and only the
 * search query, written in raw SQL per engine, touches it.
 */

/** The counts of a source are not stored: they are summed over its documents when it is read. */
export type KnowledgeSourcesTable = Omit<SqlRow<KnowledgeSource>, 'document_count' | 'chunk_count'>;

export type KnowledgeAccessTable = SqlRow<KnowledgeAccess>;

export type KnowledgeDocumentsTable = SqlRow<KnowledgeDocument> & {
  /** Sum of its chunks' `word_count`: the ranking's N and avgdl of a source are sums over its documents. */
  word_count: number;
};

export interface KnowledgeChunksTable {
  /** Assigned by the engine (SQLite rowid alias, PostgreSQL identity): the FTS5 index keys on it. */
  id: Generated<number>;
  document_id: string;
  source_id: string;
  seq: number;
  text: string;
  /** JSON array of heading titles; also indexed, so heading words rank a chunk. */
  heading_path: string;
  page: number | null;
  start_offset: number;
  end_offset: number;
  /** Its length in words (`passageLength`), the |D| of the ranking (core/knowledge/bm25.ts). */
  word_count: number;
}
