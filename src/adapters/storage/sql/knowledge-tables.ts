import type { Generated } from 'kysely';
import type { AccessSource, AgentVisibility } from '../../../core/records/agent.js';
import type { DocumentMediaType } from '../../../core/records/knowledge.js';

/*
 * Kysely row types of the knowledge tables (migration 0006_knowledge). The full-text index is not listed:
 * it is engine-specific (an FTS5 table on SQLite, a generated `tsv` column on PostgreSQL) and only the
 * search query, written in raw SQL per engine, touches it.
 */

export interface KnowledgeSourcesTable {
  id: string;
  name: string;
  description: string;
  owner_id: string;
  visibility: AgentVisibility;
  created_at: string;
  updated_at: string;
}

export interface KnowledgeAccessTable {
  user_id: string;
  source_id: string;
  source: AccessSource;
  created_at: string;
}

export interface KnowledgeDocumentsTable {
  id: string;
  source_id: string;
  name: string;
  media_type: DocumentMediaType;
  bytes: number;
  text_chars: number;
  page_count: number | null;
  chunk_count: number;
  /** Sum of its chunks' `word_count`: the ranking's N and avgdl of a source are sums over its documents. */
  word_count: number;
  created_at: string;
}

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
