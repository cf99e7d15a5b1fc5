import type { BuildReportEntry } from '../subagent-specs/build-report-entry.js';
import type { KnowledgeSourceFilter } from '../ports/knowledge-storage.js';
import { isKnowledgeSourceId } from './knowledge-access-policy.js';

/** `config.knowledge_sources` cleaned: trimmed, blanks dropped, each entry once, order kept. */
export function knowledgeSourceRefs(config: { knowledge_sources?: readonly string[] }): string[] {
  const refs = (config.knowledge_sources ?? []).map((ref) => ref.trim()).filter((ref) => ref !== '');
  return [...new Set(refs)];
}

/** The storage filter selecting the sources named by `refs`, which may be ids or names. */
export function refFilter(refs: readonly string[]): KnowledgeSourceFilter {
  return { ids: refs.filter(isKnowledgeSourceId), names: refs.filter((ref) => !isKnowledgeSourceId(ref)) };
}

/**
 * Build-report entries for configured sources the caller cannot use (missing, deleted or not shared):
 * warnings, because the agent still runs; `knowledge_search` simply leaves them out.
 */
export function knowledgeSourceReport(
  refs: readonly string[],
  visible: readonly { id: string; name: string }[],
): BuildReportEntry[] {
  const known = new Set(visible.flatMap((source) => [source.id, source.name]));
  return refs
    .filter((ref) => !known.has(ref))
    .map((ref) => ({
      code: 'unknown_knowledge_source' as const,
      spec_index: null,
      value: ref,
      message: `Knowledge source "${ref}" does not exist or is not visible to you; knowledge_search leaves it out`,
    }));
}
