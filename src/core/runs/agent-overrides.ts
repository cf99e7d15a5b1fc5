import type { Agent } from '../records/agent.js';
import type { Run } from '../records/run.js';
import { matchesToolPattern } from '../tool-patterns.js';

/**
 * What a fork changes about its agent for its own run (docs/effects-and-forks.md#agent-overrides): the model
 * is the run's `model_spec`; the prompt and the tool narrowing are kept in the run's input, so every attempt
 * (and the step inspector) applies them the same way.
 */
export interface StoredAgentOverrides {
  system_prompt?: string;
  /** Tool names or patterns (`*`, `prefix*`): only the agent's tools that match one are kept. */
  tools?: string[];
}

/** The overrides a fork stored in its run's input; undefined for every other run. */
export function agentOverridesOf(run: Pick<Run, 'input'>): StoredAgentOverrides | undefined {
  const stored = run.input.agent_overrides;
  if (stored === null || typeof stored !== 'object') return undefined;
  const { system_prompt: prompt, tools } = stored as { system_prompt?: unknown; tools?: unknown };
  return {
    ...(typeof prompt === 'string' ? { system_prompt: prompt } : {}),
    ...(Array.isArray(tools) ? { tools: tools.filter((name) => typeof name === 'string') } : {}),
  };
}

/**
 * The agent and tools a forked run executes with. Tools only ever narrow: an override is a filter over the
 * tools the agent has now, so no override gives a run a tool its agent lacks.
 */
export function withAgentOverrides<T extends { name: string }>(
  agent: Agent,
  tools: T[],
  overrides: StoredAgentOverrides | undefined,
): { agent: Agent; tools: T[] } {
  if (overrides === undefined) return { agent, tools };
  const patterns = overrides.tools;
  return {
    agent:
      overrides.system_prompt === undefined
        ? agent
        : { ...agent, config: { ...agent.config, system_prompt: overrides.system_prompt } },
    tools:
      patterns === undefined
        ? tools
        : tools.filter((tool) => patterns.some((pattern) => matchesToolPattern(pattern, tool.name))),
  };
}
