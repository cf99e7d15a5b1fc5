import type { AccessSource, AgentVisibility } from './agent.js';

/** The document formats a knowledge source accepts; everything is reduced to plain text before chunking. */
export const DOCUMENT_MEDIA_TYPES = ['text/markdown', 'text/plain', 'text/html', 'application/pdf'] as const;
export type DocumentMediaType = (typeof DOCUMENT_MEDIA_TYPES)[number];

/**
 * A named collection of documents, indexed for full-text search (SPEC §9). Visible like an agent: its owner,
 * admins, grant holders, and everyone when public. `name` is unique and is what agent configs refer to.
 */
export interface KnowledgeSource {
  id: string;
  name: string;
  description: string;
  owner_id: string;
  visibility: AgentVisibility;
  document_count: number;
  chunk_count: number;
  created_at: string;
  updated_at: string;
}

export interface KnowledgeDocument {
  id: string;
  source_id: string;
  /** The file name it was uploaded as; unique within its source (a new upload of the name replaces it). */
  name: string;
  media_type: DocumentMediaType;
  /** Size of the uploaded file. */
  bytes: number;
  /** Length of the extracted text that chunk offsets point into. */
  text_chars: number;
  /** PDF only. */
  page_count: number | null;
  chunk_count: number;
  created_at: string;
}

/**
 * Where a passage sits in its document: the Markdown/HTML heading path above it, the PDF page it starts
 * on, and its character range `[start, end)` in the document's extracted text (UTF-16 code units).
 */
export interface ChunkLocation {
  heading_path: string[];
  page: number | null;
  start: number;
  end: number;
}

/** One ranked passage of a search; a higher score is a better match (only comparable within one search). */
export interface KnowledgeHit {
  source_id: string;
  source_name: string;
  document_id: string;
  document_name: string;
  chunk_seq: number;
  text: string;
  location: ChunkLocation;
  score: number;
}

export interface KnowledgeAccess {
  user_id: string;
  source_id: string;
  source: AccessSource;
  created_at: string;
}
