import { z } from 'zod';
import { ACCESS_SOURCES, AGENT_VISIBILITIES } from './agent.js';
import { timestamp } from './record-fields.js';

/** The document formats a knowledge source accepts; everything is reduced to plain text before chunking. */
export const DOCUMENT_MEDIA_TYPES = ['text/markdown', 'text/plain', 'text/html', 'application/pdf'] as const;
export type DocumentMediaType = (typeof DOCUMENT_MEDIA_TYPES)[number];

/**
 * A named collection of documents, indexed for full-text search (docs/skills-and-knowledge.md). Visible like an agent: its owner,
 * admins, grant holders, and everyone when public. `name` is unique and is what agent configs refer to.
 */
export const knowledgeSourceRecord = z.strictObject({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  owner_id: z.string(),
  visibility: z.enum(AGENT_VISIBILITIES),
  document_count: z.number().int(),
  chunk_count: z.number().int(),
  created_at: timestamp,
  updated_at: timestamp,
});
export type KnowledgeSource = z.infer<typeof knowledgeSourceRecord>;

/**
 * `name`: the file name it was uploaded as, unique within its source (a new upload of the name replaces
 * it). `bytes`: size of the uploaded file; `text_chars`: length of the extracted text that chunk offsets
 * point into; `page_count`: PDF only.
 */
export const knowledgeDocumentRecord = z.strictObject({
  id: z.string(),
  source_id: z.string(),
  name: z.string(),
  media_type: z.enum(DOCUMENT_MEDIA_TYPES),
  bytes: z.number().int(),
  text_chars: z.number().int(),
  page_count: z.number().int().nullable(),
  chunk_count: z.number().int(),
  created_at: timestamp,
});
export type KnowledgeDocument = z.infer<typeof knowledgeDocumentRecord>;

/**
 * Where a passage sits in its document: the Markdown/HTML heading path above it, the PDF page it starts
 * on, and its character range `[start, end)` in the document's extracted text (UTF-16 code units).
 */
const chunkLocationRecord = z.strictObject({
  heading_path: z.array(z.string()),
  page: z.number().int().nullable(),
  start: z.number().int(),
  end: z.number().int(),
});
export type ChunkLocation = z.infer<typeof chunkLocationRecord>;

/** One ranked passage of a search; a higher score is a better match (only comparable within one search). */
export const knowledgeHitRecord = z.strictObject({
  source_id: z.string(),
  source_name: z.string(),
  document_id: z.string(),
  document_name: z.string(),
  chunk_seq: z.number().int(),
  text: z.string(),
  location: chunkLocationRecord,
  score: z.number(),
});
export type KnowledgeHit = z.infer<typeof knowledgeHitRecord>;

export const knowledgeAccessRecord = z.strictObject({
  user_id: z.string(),
  source_id: z.string(),
  source: z.enum(ACCESS_SOURCES),
  created_at: timestamp,
});
export type KnowledgeAccess = z.infer<typeof knowledgeAccessRecord>;
