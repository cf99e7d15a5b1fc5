import { compareCodeUnits } from '../compare-code-units.js';
import type { Agent } from '../records/agent.js';

/**
 * The subagents a run may call: the main agent's `subagents` allow-list filtered by what the user can see.
 * Unset or empty means every visible subagent. An explicit list whose entries are all invisible yields
 * none — fail closed (Yuxi fails open here, §9 item 5).
 */
export function resolveAllowedSubagents(
  visible: readonly Agent[],
  allowList: readonly string[] | undefined,
): Agent[] {
  const subagents = visible.filter((agent) => agent.is_subagent && agent.deleted_at === null);
  const requested = allowListSlugs(allowList);
  if (requested.length === 0)
    return [...subagents].sort((a, b) => compareCodeUnits(a.name, b.name) || compareCodeUnits(a.id, b.id));
  const bySlug = new Map(subagents.map((agent) => [agent.slug, agent]));
  const allowed: Agent[] = [];
  for (const slug of new Set(requested)) {
    const agent = bySlug.get(slug);
    if (agent) allowed.push(agent);
  }
  return allowed;
}

/** The slugs an allow-list names, trimmed, blanks dropped; empty means "every visible subagent". */
export function allowListSlugs(allowList: readonly string[] | undefined): string[] {
  return (allowList ?? []).map((slug) => slug.trim()).filter((slug) => slug !== '');
}
