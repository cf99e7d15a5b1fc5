import { knowledgeSourceRefs, refFilter } from '../../core/knowledge/knowledge-source-refs.js';
import type { Storage } from '../../core/ports/storage.js';
import type { MiddlewareFactory } from '../middleware/middleware-factory.js';
import { createKnowledgeSearchTool, KNOWLEDGE_SEARCH_TOOL } from './knowledge-search-tool.js';
import type { KnowledgeService } from './knowledge-service.js';

export interface KnowledgeMiddlewareDeps {
  storage: Storage;
  service: KnowledgeService;
}

/**
 * Mounts `knowledge_search` on every run — main agent, subagent or expert — whose own agent config names
 * knowledge sources (docs/skills-and-knowledge.md), with a prompt section listing the sources the run's user can read now. The
 * tool is mounted even when none is readable, so the model gets an explanation rather than a missing tool;
 * each call re-checks access, so a grant revoked mid-run stops the next search.
 */
export function createKnowledgeMiddleware(deps: KnowledgeMiddlewareDeps): MiddlewareFactory {
  return async ({ agent, user }) => {
    const refs = knowledgeSourceRefs(agent.config);
    if (refs.length === 0) return [];
    const readable = await deps.storage.knowledgeSources.listUsable(user, refFilter(refs));
    const section =
      readable.length === 0
        ? ''
        : [
            '## Knowledge sources',
            `Search these with \`${KNOWLEDGE_SEARCH_TOOL}\` before answering questions they cover, and cite each passage you use by its document and section:`,
            ...readable.map(
              (source) => `- ${source.name}${source.description ? `: ${source.description}` : ''}`,
            ),
          ].join('\n');
    return [
      {
        name: 'knowledge',
        tools: [createKnowledgeSearchTool({ service: deps.service, user, refs })],
        wrapModelCall(request, next) {
          if (section === '') return next(request);
          return next({ ...request, system: request.system ? `${request.system}\n\n${section}` : section });
        },
      },
    ];
  };
}
