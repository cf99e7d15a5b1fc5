import type { Agent } from '../records/agent.js';

/** What a source must give for each tool; the runtime's `TroupeTool` is one (core cannot name it). */
export interface SourcedTool {
  name: string;
}

/** The tool names a source could list for an agent right now, for authoring reports. */
export interface ToolSourceProbe {
  tool_names: string[];
  /** Servers that did not answer in time or failed; their tools are unknown, not absent. */
  unreachable: { server: string; prefix: string; message: string }[];
  /** Servers the source refuses to start for this agent (policy), with the reason. */
  refused: { server: string; prefix: string; message: string }[];
}

/**
 * Tools that come from outside the process (MCP servers), per agent. A source that cannot reach a server
 * leaves its tools out or answers their calls with an error result; it never fails the run.
 */
export interface ToolSource<TTool extends SourcedTool = SourcedTool> {
  toolsFor(agent: Agent): Promise<TTool[]>;
  /** Lists tool names with a short deadline; for build reports, never for runs. */
  probe?(agent: Agent, options: { timeoutMs: number }): Promise<ToolSourceProbe>;
  close(): Promise<void>;
}
