import type { Agent } from '../records/agent.js';
import type { Run } from '../records/run.js';
import type { ResolvedSubagent } from '../subagent-specs/resolved-subagent.js';

/**
 * The Agent an inline or built-in subagent runs as: the parent's record (same id, owner and access, so
 * visibility checks and grants keep working) with the spec's name, prompt, tools and model, marked as a
 * subagent so no middleware mounts subagent or delegation tools on it.
 */
export function inlineSubagentAgent(parent: Agent, subagent: ResolvedSubagent): Agent {
  return {
    ...parent,
    slug: subagent.name,
    name: subagent.name,
    description: subagent.description,
    backend: 'subagent',
    is_subagent: true,
    is_default: false,
    config: {
      system_prompt: subagent.system_prompt,
      model: subagent.model,
      // Exact names, never patterns: the builder already resolved them against the parent's tools.
      tools: [...subagent.tools],
      // The spec's own skills only (docs/skills-and-knowledge.md): a subagent never inherits its parent's.
      ...(subagent.skills ? { skills: [...subagent.skills] } : {}),
      ...(parent.config.tool_approval_mode ? { tool_approval_mode: parent.config.tool_approval_mode } : {}),
      ...(parent.config.max_steps ? { max_steps: parent.config.max_steps } : {}),
      ...(parent.config.limits ? { limits: { ...parent.config.limits } } : {}),
    },
  };
}

/** The inline or built-in subagent a run plays, when it is one (`input.inline_subagent`). */
export function inlineSubagentName(run: Run): string | undefined {
  const name = run.input.inline_subagent;
  return run.run_type === 'subagent' && typeof name === 'string' && name !== '' ? name : undefined;
}
