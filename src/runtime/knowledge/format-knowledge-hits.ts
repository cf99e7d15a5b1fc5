import type { ChunkLocation, KnowledgeHit } from '../../core/records/knowledge.js';
import type { KnowledgeSearchResult } from './knowledge-service.js';

/** `ops-handbook/security.md § Security > API tokens, page 3`: how a model (and a reader) cites a passage. */
export function citation(hit: Pick<KnowledgeHit, 'source_name' | 'document_name' | 'location'>): string {
  return `${hit.source_name}/${hit.document_name}${describeLocation(hit.location)}`;
}

/** ` § Security > API tokens, page 3`; empty for a passage without headings or pages. */
export function describeLocation(location: ChunkLocation): string {
  const section = location.heading_path.length > 0 ? ` § ${location.heading_path.join(' > ')}` : '';
  const page = location.page === null ? '' : `, page ${location.page}`;
  return `${section}${page}`;
}

/**
 * The `knowledge_search` result as the model reads it: ranked passages, each headed by its citation,
 * its character range and its score, then how to cite. Plain text, so a quoted result stays readable.
 */
export function formatKnowledgeResult(
  query: string,
  result: KnowledgeSearchResult,
  configured: readonly string[],
): string {
  if (result.sources.length === 0) {
    return `No knowledge source is available: none of the configured sources (${configured.join(', ')}) exists or is visible to the user of this run.`;
  }
  const where = result.sources.map((source) => source.name).join(', ');
  if (result.results.length === 0) return `No passage in ${where} matches "${query}".`;
  const passages = result.results.map((hit, index) => {
    const { start, end } = hit.location;
    return `[${index + 1}] ${citation(hit)} (chars ${start}-${end}, score ${hit.score.toFixed(2)})\n${hit.text}`;
  });
  const count = result.results.length;
  return [
    `${count} passage${count === 1 ? '' : 's'} from ${where} for "${query}", best first:`,
    ...passages,
    'Cite the passages you use by source/document and section, e.g. "' +
      citation(result.results[0] as KnowledgeHit) +
      '".',
  ].join('\n\n');
}
