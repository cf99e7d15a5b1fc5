import { SUBAGENT_TEXTS } from '../../../core/subagents/subagent-texts.js';
import type { ToolContext } from '../../../core/tools/troupe-tool.js';
import { runCapabilities } from '../../../core/runs/run-capabilities.js';
import { toolNotAvailableRefusal } from '../../../core/tools/tool-not-available.js';

/**
 * The third line behind the subagent filter's two (hidden from the model, refused at execution): a tool that
 * talks to the user refuses a subagent run even if it were ever mounted without the filter.
 */
export function refuseSubagentRun(toolName: string, context: ToolContext): void {
  if (runCapabilities(context.run).subagent) {
    throw toolNotAvailableRefusal(toolName, SUBAGENT_TEXTS.toolNotAvailable(toolName));
  }
}
