import { TroupeError } from '../../core/errors.js';
import type { Agent } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import { buildAgentSubagents } from '../../core/subagent-specs/build-agent-subagents.js';
import { agentTools, type AgentToolsDeps } from './agent-tools.js';
import type { AnyTroupeTool } from '../../core/tools/troupe-tool.js';
import { inlineSubagentAgent, inlineSubagentName } from '../../core/subagents/inline-subagent-agent.js';
import { agentOverridesOf, withAgentOverrides } from '../../core/runs/agent-overrides.js';
import { GRADER_TOOLS, graderAgent, isGraderRun } from '../../core/verification/grader-agent.js';

/**
 * The agent a run executes as, and its tools. Usually the stored agent; for an inline or built-in
 * subagent run (`input.inline_subagent`) the parent's specs are rebuilt now — silently, drops are for the
 * build report — and the child gets the resolved spec's prompt and exactly its resolved tools. A fork's run
 * applies its overrides last (docs/effects-and-forks.md#agent-overrides).
 */
export async function resolveRunAgent(
  run: Run,
  stored: Agent,
  deps: AgentToolsDeps,
): Promise<{ agent: Agent; tools: AnyTroupeTool[] }> {
  // A grader reads the workdir and nothing else, whatever its base agent's tools (docs/verified-delegation.md).
  if (isGraderRun(run)) {
    const granted: ReadonlySet<string> = new Set(GRADER_TOOLS);
    return {
      agent: graderAgent(stored, run.model_spec),
      tools: deps.catalogue.filter((tool) => granted.has(tool.name)),
    };
  }
  const tools = await agentTools(stored, deps);
  const name = inlineSubagentName(run);
  const overrides = agentOverridesOf(run);
  if (name === undefined) return withAgentOverrides(stored, tools, overrides);
  const { subagents } = buildAgentSubagents({
    config: stored.config,
    parentTools: tools.map((tool) => tool.name),
    parentModel: run.model_spec,
    approvalMode: run.tool_approval_mode,
  });
  const resolved = subagents.find((subagent) => subagent.name === name);
  if (!resolved) {
    throw new TroupeError(
      'agent_not_found',
      `Subagent "${name}" is no longer defined by agent ${stored.slug}`,
    );
  }
  const granted = new Set(resolved.tools);
  return withAgentOverrides(
    inlineSubagentAgent(stored, resolved),
    tools.filter((tool) => granted.has(tool.name)),
    overrides,
  );
}
