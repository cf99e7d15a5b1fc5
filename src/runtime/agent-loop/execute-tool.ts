import { z } from 'zod';
import { isTroupeError } from '../../core/errors.js';
import { toolFailureResult } from '../../core/tools/tool-refusal.js';
import type { ToolCallRequest, ToolCallResult } from '../../core/ports/agent-middleware.js';
import { ApprovalPendingError } from '../../core/approvals/approval-pending-error.js';

/**
 * The innermost tool call: validate the input against the tool's schema, then execute it. An `external` call
 * is journalled `started` first (`startExternal`, committed before the tool runs: docs/effects-and-forks.md#the-journal),
 * after every middleware has let it through, so a call refused, parked or stopped before it is not marked.
 */
export async function executeTool(
  request: ToolCallRequest,
  startExternal?: (toolCallId: string) => Promise<void>,
): Promise<ToolCallResult> {
  const { tool } = request;
  if (!tool) {
    return { output: `Tool ${request.toolName} does not exist in this run.`, isError: true };
  }
  const parsed = tool.inputSchema.safeParse(request.input);
  if (!parsed.success) {
    return {
      output: `Invalid arguments for tool ${request.toolName}: ${z.prettifyError(parsed.error)}`,
      isError: true,
    };
  }
  if (tool.effect === 'external' && startExternal) await startExternal(request.toolCallId);
  try {
    return { output: await tool.execute(parsed.data, request.context), isError: false };
  } catch (error) {
    request.context.abortSignal.throwIfAborted();
    // A tool that waits for a human (ask_user_question) parks the run like an approval does; a database outage
    // is the run's to wait out, and the call is made again (docs/scale-out.md, "Outages").
    if (error instanceof ApprovalPendingError || isTroupeError(error, 'storage_unavailable')) throw error;
    return toolFailureResult(error);
  }
}
