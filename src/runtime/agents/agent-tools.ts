import type { ToolSource } from '../../core/ports/tool-source.js';
import type { Agent } from '../../core/records/agent.js';
import { selectByPatterns } from '../../core/tool-patterns.js';
import type { AnyTroupeTool } from '../../core/tools/troupe-tool.js';

export interface AgentToolsDeps {
  /** The built-in tool catalogue; the agent's `config.tools` patterns select from it. */
  catalogue: readonly AnyTroupeTool[];
  /** External tools (MCP servers): every tool of the agent's configured servers joins. */
  toolSources?: readonly ToolSource<AnyTroupeTool>[];
}

/**
 * An agent's own tools: the catalogue entries its patterns select plus its sources' tools. A source that
 * fails leaves its tools out; it never fails the run. A catalogue tool keeps its name against a source's.
 */
export async function agentTools(agent: Agent, deps: AgentToolsDeps): Promise<AnyTroupeTool[]> {
  const selected = selectByPatterns(deps.catalogue, agent.config.tools);
  const sourced = await Promise.all(
    (deps.toolSources ?? []).map((source) => source.toolsFor(agent).catch(() => [])),
  );
  const names = new Set(selected.map((tool) => tool.name));
  const extra = sourced.flat().filter((tool) => !names.has(tool.name) && names.add(tool.name));
  return [...selected, ...extra];
}
