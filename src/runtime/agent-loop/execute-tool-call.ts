import { ApprovalPendingError } from '../../core/approvals/approval-pending-error.js';
import { isTroupeError } from '../../core/errors.js';
import type { ToolCallResult } from '../../core/ports/agent-middleware.js';
import type { ModelToolCall } from '../../core/ports/model-stream.js';
import { toolEvent } from '../../core/records/tool-event.js';
import { toolFailureResult } from '../../core/tools/tool-refusal.js';
import { UNKNOWN_OUTCOME_TEXT } from '../../core/tools/unknown-outcome.js';
import type { ToolContext } from '../../core/tools/troupe-tool.js';
import type { AgentLoopOptions } from './agent-loop-options.js';

/** One tool call through the middleware chain; a failure the run does not own becomes the call's error result. */
export async function executeToolCall(
  options: AgentLoopOptions,
  call: ModelToolCall,
): Promise<ToolCallResult> {
  if (call.cutOff === true) {
    return {
      output:
        `Your call to ${call.toolName} was cut off by the output token limit before its arguments were ` +
        'complete, so it was not run. Make the call again with less in it (for example, write a long file ' +
        'in several smaller calls).',
      isError: true,
    };
  }
  if (call.invalidInput !== undefined) {
    return { output: `Invalid arguments for tool ${call.toolName}: ${call.invalidInput}`, isError: true };
  }
  // Started and never finished: only external calls are marked, and those are not run twice.
  if (options.pending?.started?.has(call.toolCallId) === true) {
    return { output: UNKNOWN_OUTCOME_TEXT, isError: true, outcome: 'unknown' };
  }
  const context: ToolContext = {
    run: options.run,
    toolCallId: call.toolCallId,
    abortSignal: options.abortSignal,
    emit: async (...args) => {
      const event = toolEvent(call.toolCallId, ...args);
      await options.emitter.emit(event.type, event.payload);
    },
    workdir: options.workdir,
    ...(options.suspend ? { suspend: options.suspend } : {}),
    adoptCheckpoint: () => options.emitter.adopt(),
  };
  try {
    return await options.chain.callTool({
      run: options.run,
      agent: options.agent,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
      tool: options.tools.get(call.toolName),
      context,
    });
  } catch (error) {
    // Aborts, approvals and database outages belong to the run (an outage is waited out and the call made again:
    // docs/scale-out.md, "Outages"); any other tool failure is data for the model (house style §6.3).
    options.abortSignal.throwIfAborted();
    if (error instanceof ApprovalPendingError || isTroupeError(error, 'storage_unavailable')) throw error;
    return toolFailureResult(error);
  }
}
