import { ApprovalPendingError } from '../../core/approvals/approval-pending-error.js';
import type { ToolCallResult } from '../../core/ports/agent-middleware.js';
import type { ModelToolCall } from '../../core/ports/model-stream.js';
import type { ModelCallUsage } from '../../core/runs/run-usage.js';
import type { ChatMessage, ToolChatMessage } from '../../core/thread/chat-message.js';
import type { AnyTroupeTool } from '../../core/tools/troupe-tool.js';
import { toolResultMarks } from '../../core/thread/tool-result-marks.js';
import type { PendingEvent } from '../events/run-emitter.js';
import type { AgentLoopOptions } from './agent-loop-options.js';
import { executeToolCall } from './execute-tool-call.js';

/**
 * Runs the calls of one step concurrently. Each result is checkpointed and emitted as it lands;
 * calls waiting for a human decision are returned. An abort stops everything after the calls settle.
 * The step's `step` event commits with the result that completes the step (the last to land, when every
 * other call landed too): no commit of its own, and none at all for a step that parks for input.
 */
export async function runToolCalls(
  options: AgentLoopOptions,
  step: number,
  calls: ModelToolCall[],
  messages: ChatMessage[],
  /** The model's turn was just checkpointed with its `tool_call` events; a resumed step announces them again. */
  announced: boolean,
  stepEvent: PendingEvent,
): Promise<string[]> {
  const { emitter } = options;
  const waiting: string[] = [];
  if (!announced) {
    for (const call of calls) {
      const event = toolCallEvent(step, call);
      await emitter.emit(event.type, event.payload);
    }
  }
  let unsettled = calls.length;
  let everyOtherLanded = true;
  const landed = await Promise.allSettled(
    calls.map(async (call) => {
      let counted = false;
      try {
        const outcome = await executeToolCall(options, call);
        options.abortSignal.throwIfAborted();
        const message = toToolMessage(call, outcome);
        unsettled -= 1;
        counted = true;
        const completesStep = unsettled === 0 && everyOtherLanded;
        const result: PendingEvent = {
          type: 'tool_result',
          payload: {
            step,
            tool_call_id: call.toolCallId,
            name: call.toolName,
            output: outcome.output,
            is_error: outcome.isError,
            ...(outcome.refusal ? { refusal: outcome.refusal } : {}),
            ...(outcome.outcome ? { outcome: outcome.outcome } : {}),
          },
        };
        const events = completesStep ? [result, stepEvent] : [result];
        // A child start's result is found again by its replay: it may wait for the run's next commit.
        if (options.hold && startsChildOnly(options.tools, call)) options.hold(step, [message], events);
        else await options.checkpoint(step, [message], events);
        messages.push(message);
      } catch (error) {
        if (!counted) unsettled -= 1;
        everyOtherLanded = false;
        throw error;
      }
    }),
  );
  // A step that stops here (an abort, a call that failed or waits for a human) writes what it held before the
  // run parks or ends; one that goes on leaves it to the run's next commit.
  if (options.abortSignal.aborted || landed.some((settled) => settled.status === 'rejected')) {
    await options.emitter.flush().catch(() => undefined);
  }
  options.abortSignal.throwIfAborted();
  for (const settled of landed) {
    if (settled.status === 'fulfilled') continue;
    if (settled.reason instanceof ApprovalPendingError) waiting.push(settled.reason.toolCallId);
    else throw settled.reason;
  }
  return waiting;
}

/**
 * Whether the call's only effect is a child run's start, whose transaction can carry the step's checkpoint:
 * a tool that says so (`adoptsCheckpoint`), called with input that parsed.
 */
export function startsChildOnly(tools: ReadonlyMap<string, AnyTroupeTool>, call: ModelToolCall): boolean {
  return call.invalidInput === undefined && tools.get(call.toolName)?.adoptsCheckpoint === true;
}

export function toolCallEvent(step: number, call: ModelToolCall, modelUsage?: ModelCallUsage): PendingEvent {
  return {
    type: 'tool_call',
    payload: {
      step,
      tool_call_id: call.toolCallId,
      name: call.toolName,
      args: call.input,
      ...(modelUsage ? { model_usage: modelUsage } : {}),
    },
  };
}

function toToolMessage(call: ModelToolCall, result: ToolCallResult): ToolChatMessage {
  const output = result.output;
  return {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: result.isError
          ? { type: 'error-text', value: typeof output === 'string' ? output : JSON.stringify(output) }
          : typeof output === 'string'
            ? { type: 'text', value: output }
            : { type: 'json', value: output },
        ...toolResultMarks(result),
      },
    ],
  };
}
