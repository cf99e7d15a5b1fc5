import type { AssistantChatMessage } from '../../core/thread/chat-message.js';
import type { ModelCallResult } from '../../core/ports/agent-middleware.js';
import type { ModelToolCall } from '../../core/ports/model-stream.js';
import type { Run } from '../../core/records/run.js';
import type { PendingEvent } from '../events/run-emitter.js';
import type { AgentLoopOptions } from './agent-loop-options.js';
import { runToolCalls, startsChildOnly, toolCallEvent } from './run-tool-calls.js';

export type AgentLoopOutcome =
  | {
      kind: 'completed';
      output: string;
      /** Set when `finish` ended the run with its final checkpoint. */ ended?: Run;
    }
  | { kind: 'max_steps'; output: string }
  | { kind: 'input_required'; toolCallIds: string[] };

/**
 * The agent loop of docs/agent-loop.md: model call → tool calls (concurrently) → checkpoint → repeat, until the model
 * answers without tool calls or `maxSteps` is reached. The model's turn is checkpointed before its tools
 * run and every tool result as it lands, so a resumed run re-runs only the calls that have no result.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopOutcome> {
  const { run, agent, chain, abortSignal } = options;
  const messages = [...options.messages];
  let lastText = '';

  if (options.pending && options.pending.calls.length > 0) {
    const { step, calls } = options.pending;
    const waiting = await runToolCalls(options, step, calls, messages, false, {
      type: 'step',
      payload: { step, tool_calls: calls.length, resumed: true },
    });
    if (waiting.length > 0) return { kind: 'input_required', toolCallIds: waiting };
  }

  for (let step = options.firstStep; step <= options.maxSteps; step++) {
    abortSignal.throwIfAborted();
    const steering = (await options.beforeStep?.(step)) ?? [];
    if (steering.length > 0) {
      await options.checkpoint(step, steering);
      messages.push(...steering);
    }
    const result = await chain.callModel({
      run,
      agent,
      step,
      system: options.system,
      messages,
      tools: [...options.tools.values()],
      model: options.model,
      abortSignal,
    });
    lastText = result.text;
    const assistant = toAssistantMessage(result.text, result.toolCalls);
    if (result.toolCalls.length === 0) {
      const events: PendingEvent[] = [
        {
          type: 'step',
          payload: {
            step,
            tool_calls: 0,
            finish_reason: result.finishReason,
            usage: result.usage,
            ...answeredBy(result),
          },
        },
      ];
      if (options.finish) {
        const ended = await options.finish(step, [assistant], events, result.text, result.usage);
        return ended
          ? { kind: 'completed', output: result.text, ended }
          : { kind: 'completed', output: result.text };
      }
      await options.checkpoint(step, [assistant], events, result.usage);
      return { kind: 'completed', output: result.text };
    }
    // The first `tool_call` carries the usage of the call that asked for them: it commits with the model's
    // turn, as that usage does (docs/usage.md), where the step's `step` event comes only after its tools.
    const announced = result.toolCalls.map((call, index) =>
      toolCallEvent(step, call, index === 0 ? result.usage : undefined),
    );
    if (options.hold && result.toolCalls.every((call) => startsChildOnly(options.tools, call))) {
      options.hold(step, [assistant], announced, result.usage);
    } else {
      await options.checkpoint(step, [assistant], announced, result.usage);
    }
    messages.push(assistant);
    const waiting = await runToolCalls(options, step, result.toolCalls, messages, true, {
      type: 'step',
      payload: {
        step,
        tool_calls: result.toolCalls.length,
        finish_reason: result.finishReason,
        usage: result.usage,
        ...answeredBy(result),
      },
    });
    if (waiting.length > 0) return { kind: 'input_required', toolCallIds: waiting };
  }
  return { kind: 'max_steps', output: lastText };
}

/** The step event's `model`: only when a fallback answered (the run's own model is in its `metadata`). */
function answeredBy(result: ModelCallResult): { model?: string } {
  return result.model === undefined ? {} : { model: result.model };
}

function toAssistantMessage(text: string, toolCalls: ModelToolCall[]): AssistantChatMessage {
  const content: Exclude<AssistantChatMessage['content'], string> = [];
  if (text !== '') content.push({ type: 'text', text });
  for (const call of toolCalls) {
    // Arguments that did not parse as an object are kept out of the thread: providers such as Anthropic
    // refuse a tool call whose input is not an object (the call's result tells the model what was wrong).
    const input =
      typeof call.input === 'object' && call.input !== null && !Array.isArray(call.input) ? call.input : {};
    content.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input });
  }
  return { role: 'assistant', content };
}
