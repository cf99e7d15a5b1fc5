import type { Actor } from '../../core/records/user.js';
import { defineTool } from '../../core/tools/troupe-tool.js';
import { formatKnowledgeResult } from './format-knowledge-hits.js';
import {
  DEFAULT_TOP_K,
  knowledgeSearchInputSchema,
  MAX_TOP_K,
  type KnowledgeSearchInput,
} from './knowledge-input-schemas.js';
import type { KnowledgeService } from './knowledge-service.js';

export const KNOWLEDGE_SEARCH_TOOL = 'knowledge_search';

export interface KnowledgeSearchToolOptions {
  service: KnowledgeService;
  /** The run's user: every search is checked against what this user may read, at the time of the call. */
  user: Actor;
  /** The agent's own `config.knowledge_sources` (ids or names); a subagent's are its own, never its parent's. */
  refs: readonly string[];
}

/** `knowledge_search {query, top_k?}`: ranked passages from the agent's knowledge sources, with citations. */
export function createKnowledgeSearchTool(options: KnowledgeSearchToolOptions) {
  return defineTool<KnowledgeSearchInput>({
    name: KNOWLEDGE_SEARCH_TOOL,
    effect: 'read_only',
    description:
      `Full-text search of this agent's knowledge sources (${options.refs.join(', ')}). Returns up to top_k ` +
      `passages (default ${DEFAULT_TOP_K}, max ${MAX_TOP_K}), best first, each with its document, section or page, ` +
      'character range and score. Use plain keywords; cite the passages you rely on.',
    inputSchema: knowledgeSearchInputSchema,
    async execute(input) {
      const result = await options.service.searchSources(options.user, options.refs, input);
      return formatKnowledgeResult(input.query, result, options.refs);
    },
  });
}
