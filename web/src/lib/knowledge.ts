import type { ChunkLocation, KnowledgeHit } from '../api/types.ts';

/** ` § Security > API tokens, page 3`: the part of a citation after the document name. */
export function describeLocation(location: ChunkLocation): string {
  const section = location.heading_path.length > 0 ? ` § ${location.heading_path.join(' > ')}` : '';
  const page = location.page === null ? '' : `, page ${location.page}`;
  return `${section}${page}`;
}

/** `ops-handbook/security.md § Security > API tokens`: the same citation the `knowledge_search` tool prints. */
export function citation(hit: Pick<KnowledgeHit, 'source_name' | 'document_name' | 'location'>): string {
  return `${hit.source_name}/${hit.document_name}${describeLocation(hit.location)}`;
}

/** Same rule as the server (agent slugs): lowercase letter first, then a-z, 0-9, "_" or "-", 2 to 63 chars. */
export const KNOWLEDGE_NAME_PATTERN = '[a-z][a-z0-9_\\-]{1,62}';

/** Accepted upload types, for the file picker. */
export const KNOWLEDGE_FILE_ACCEPT =
  '.md,.markdown,.txt,.text,.html,.htm,.pdf,text/markdown,text/plain,text/html,application/pdf';
