import { disabledToolsForSubagents } from '../../core/subagents/subagent-tool-policy.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';
import type { ToolApprovalMode } from '../../core/records/agent.js';
import type { AgentMiddleware } from './agent-middleware.js';

/**
 * Two defences for subagent runs (Yuxi issue #1000): disabled tools are hidden from the model AND refused
 * when called anyway (a hallucinated or replayed call to a hidden tool never executes).
 */
export function createSubagentToolFilterMiddleware(mode: ToolApprovalMode): AgentMiddleware {
  const disabled = disabledToolsForSubagents(mode);
  return {
    name: 'subagent-tool-filter',
    wrapModelCall(request, next) {
      return next({ ...request, tools: request.tools.filter((tool) => !disabled.has(tool.name)) });
    },
    async wrapToolCall(request, next) {
      if (disabled.has(request.toolName)) {
        return { output: SUBAGENT_TEXTS.toolNotAvailable(request.toolName), isError: true };
      }
      return next(request);
    },
  };
}
