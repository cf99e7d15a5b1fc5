import { isDisabledForSubagents } from '../../core/subagents/subagent-tool-policy.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';
import type { ToolApprovalMode } from '../../core/records/agent.js';
import type { AnyTroupeTool } from '../../core/tools/troupe-tool.js';
import type { AgentMiddleware } from '../../core/ports/agent-middleware.js';
import { toolNotAvailable } from '../../core/tools/tool-not-available.js';

/**
 * Two defences for subagent runs (Yuxi issue #1000): disabled tools are hidden from the model AND refused
 * when called anyway (a hallucinated or replayed call to a hidden tool never executes). "Sensitive" is the
 * tool's own property, the same one approvals read, so a new sensitive tool never reaches a subagent
 * outside `always_trust` by being missing from a list.
 */
export function createSubagentToolFilterMiddleware(mode: ToolApprovalMode): AgentMiddleware {
  const disabled = (name: string, tool: AnyTroupeTool | undefined): boolean =>
    isDisabledForSubagents({ name, sensitive: tool?.sensitive === true }, mode);
  return {
    name: 'subagent-tool-filter',
    wrapModelCall(request, next) {
      return next({ ...request, tools: request.tools.filter((tool) => !disabled(tool.name, tool)) });
    },
    async wrapToolCall(request, next) {
      if (disabled(request.toolName, request.tool)) {
        return toolNotAvailable(request.toolName, SUBAGENT_TEXTS.toolNotAvailable(request.toolName));
      }
      return next(request);
    },
  };
}
