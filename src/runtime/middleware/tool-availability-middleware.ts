import type { Agent } from '../../core/records/agent.js';
import type { AgentMiddleware } from '../../core/ports/agent-middleware.js';
import { toolNotAvailable } from '../../core/tools/tool-not-available.js';

const MCP_TOOL = /^mcp__(.+?)__./;

/** docs/subagents.md's refusal for a call to a tool this run does not have, or did not show the model. */
export function toolNotAvailableText(name: string, agent: Agent): string {
  const base = `tool ${name} is not available to this agent`;
  const server = MCP_TOOL.exec(name)?.[1];
  if (server === undefined || (agent.config.mcp_servers ?? []).length === 0) return base;
  // The usual cause is a server that could not be reached when the run listed its tools.
  return `${base}: its MCP server "${server}" did not offer it for this run (the server may be down or no longer have this tool)`;
}

/**
 * The execution guard for calls the model was not offered (a hallucinated name, a tool hidden for this
 * run, a tool of an earlier turn that is gone). Such calls reach the tool chain like any other, so a
 * refusal is an error tool result, never "invalid arguments". It sits inside every layer that adds or
 * hides tools: its `wrapModelCall` sees exactly what the model was shown, and layers outside it (the
 * subagent filter) answer first with their own, more specific refusal.
 */
export function createToolAvailabilityMiddleware(): AgentMiddleware {
  // What the model was shown in this run's latest call. Unknown for calls resumed from a checkpoint (no
  // model call in this attempt): then only the registry is checked, which is why a layer that hides tools
  // must also refuse them itself, as the subagent filter does.
  let offered: ReadonlySet<string> | undefined;
  return {
    name: 'tool-availability',
    wrapModelCall(request, next) {
      offered = new Set(request.tools.map((tool) => tool.name));
      return next(request);
    },
    async wrapToolCall(request, next) {
      if (!request.tool || (offered !== undefined && !offered.has(request.toolName))) {
        return toolNotAvailable(request.toolName, toolNotAvailableText(request.toolName, request.agent));
      }
      return next(request);
    },
  };
}
