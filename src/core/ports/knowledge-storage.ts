import type { AgentVisibility } from '../records/agent.js';
import type {
  DocumentMediaType,
  KnowledgeDocument,
  KnowledgeHit,
  KnowledgeSource,
} from '../records/knowledge.js';
import type { Actor } from '../records/user.js';

/*
 * The knowledge part of the storage port (docs/skills-and-knowledge.md): sources with their grants, documents with their
 * chunks, and the full-text index over the chunks (FTS5 on SQLite, tsvector + GIN on PostgreSQL).
 */

export interface NewKnowledgeSource {
  name: string;
  description: string;
  owner_id: string;
  visibility: AgentVisibility;
}

export type KnowledgeSourcePatch = Partial<Pick<KnowledgeSource, 'description' | 'visibility'>>;

/** Restricts a listing to these ids or names; both missing: no restriction; both empty: nothing. */
export interface KnowledgeSourceFilter {
  ids?: readonly string[];
  names?: readonly string[];
}

export interface KnowledgeSourceRepository {
  /** `knowledge_source_name_taken` when the name is used (names are unique across users). */
  create(source: NewKnowledgeSource): Promise<KnowledgeSource>;
  get(id: string): Promise<KnowledgeSource | undefined>;
  getByName(name: string): Promise<KnowledgeSource | undefined>;
  /** `knowledge_source_not_found` when missing. */
  update(id: string, patch: KnowledgeSourcePatch): Promise<KnowledgeSource>;
  /** Removes the source with its documents, chunks, index entries and grants; false when missing. */
  delete(id: string): Promise<boolean>;
  /**
   * The sources `actor` may use, filtered in SQL: admin, owner, grant holder, or public. Ordered by name.
   * This is the one access check of search, so a revoked grant stops the very next search.
   */
  listUsable(actor: Actor, filter?: KnowledgeSourceFilter): Promise<KnowledgeSource[]>;
}

export interface NewKnowledgeDocument {
  source_id: string;
  name: string;
  media_type: DocumentMediaType;
  bytes: number;
  text_chars: number;
  page_count: number | null;
}

export interface NewKnowledgeChunk {
  text: string;
  heading_path: string[];
  page: number | null;
  start: number;
  end: number;
}

export interface KnowledgeSearchQuery {
  /** Only chunks of these sources; the caller has already checked access. Empty: no results. */
  source_ids: readonly string[];
  /** Plain words (see `parseSearchTerms`); a chunk matching any of them is a candidate. Empty: no results. */
  terms: readonly string[];
  limit: number;
}

export interface KnowledgeDocumentRepository {
  /**
   * Stores a document and its chunks and indexes them, in one transaction. A document of the same name in
   * the source is replaced (its chunks leave the index in the same transaction).
   */
  put(
    document: NewKnowledgeDocument,
    chunks: readonly NewKnowledgeChunk[],
  ): Promise<{ document: KnowledgeDocument; replaced: boolean }>;
  get(id: string): Promise<KnowledgeDocument | undefined>;
  /** Ordered by name. */
  list(sourceId: string): Promise<KnowledgeDocument[]>;
  /** Removes the document and its chunks from the index; false when missing. */
  delete(id: string): Promise<boolean>;
  /**
   * Best matches first, ranked by the BM25 of core/knowledge/bm25.ts with statistics counted over the chunks
   * of `source_ids` alone: no other document, whoever owns it, changes a hit or a score.
   */
  search(query: KnowledgeSearchQuery): Promise<KnowledgeHit[]>;
}
