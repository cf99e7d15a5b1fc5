import type { Agent } from '../../core/records/agent.js';
import { GENERAL_PURPOSE_NAME } from '../../core/subagent-specs/general-purpose-subagent.js';
import type { ResolvedSubagent } from '../../core/subagent-specs/resolved-subagent.js';
import { inlineSubagentAgent } from '../../core/subagents/inline-subagent-agent.js';

export interface SubagentNamespace {
  /** What `task` may start, in prompt order: built-ins, then inline specs, then registered subagents. */
  entries: Agent[];
  /** Names in `entries` that run as the parent agent (built-ins and inline specs). */
  inline: Set<string>;
}

/**
 * One `task` namespace (docs/inline-subagents.md): built-ins, then inline specs, then registered subagents; a name is
 * taken by the first. `general-purpose` joins only an agent that has subagents at all — another entry, or
 * an allow-list naming it — so an agent without subagents still gets no tools and no prompt section.
 */
export function subagentNamespace(
  parent: Agent,
  resolved: readonly ResolvedSubagent[],
  registered: readonly Agent[],
): SubagentNamespace {
  const others = resolved.filter(
    (subagent) => subagent.name !== GENERAL_PURPOSE_NAME || subagent.source === 'inline',
  );
  const taken = new Set(resolved.map((subagent) => subagent.name));
  const visibleRegistered = registered.filter((agent) => !taken.has(agent.slug));
  const wantsGeneralPurpose =
    others.length > 0 ||
    registered.length > 0 ||
    (parent.config.subagents ?? []).includes(GENERAL_PURPOSE_NAME);
  const own = wantsGeneralPurpose ? [...resolved] : others;
  return {
    entries: [...own.map((subagent) => inlineSubagentAgent(parent, subagent)), ...visibleRegistered],
    inline: new Set(own.map((subagent) => subagent.name)),
  };
}
