import type { AssistantChatMessage, ChatMessage, ToolChatMessage } from '../../core/thread/chat-message.js';
import { isTroupeError, toTroupeError } from '../../core/errors.js';
import type { ResolvedModel } from '../../core/ports/model-provider.js';
import type { Agent } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import type { ModelToolCall } from '../../core/ports/model-stream.js';
import type { ModelCallUsage } from '../../core/runs/run-usage.js';
import type { ModelCallResult, ToolCallResult } from '../../core/ports/agent-middleware.js';
import { ApprovalPendingError } from '../../core/approvals/approval-pending-error.js';
import type { ComposedMiddleware } from '../middleware/compose-middleware.js';
import type { PendingEvent, RunEmitter } from '../events/run-emitter.js';
import type { AnyTroupeTool, ToolContext } from '../../core/tools/troupe-tool.js';
import { toolEvent } from '../../core/records/tool-event.js';
import { ToolRefusal } from '../../core/tools/tool-refusal.js';

export interface AgentLoopOptions {
  run: Run;
  agent: Agent;
  model: ResolvedModel;
  system: string;
  /** The thread so far, ending with the input (or with what was checkpointed before a resume). */
  messages: ChatMessage[];
  /** Every tool registered for the run, by name; what the model sees is decided by middleware. */
  tools: ReadonlyMap<string, AnyTroupeTool>;
  chain: ComposedMiddleware;
  emitter: RunEmitter;
  abortSignal: AbortSignal;
  workdir: string;
  /** Lets tools wait on other runs without holding the executor slot (see WorkerSlots). */
  suspend?: <T>(work: () => Promise<T>) => Promise<T>;
  /** First step to execute: 1 for a new run, last checkpointed step + 1 when resuming. */
  firstStep: number;
  /** Tool calls of a checkpointed step that have no result yet (a resume after a crash or an approval). */
  pending?: { step: number; calls: ModelToolCall[] };
  maxSteps: number;
  /**
   * Persists messages of a step atomically (the model's turn, then each tool result as it lands), with the
   * events that announce them and the text streamed before them, in one transaction. A model's turn comes
   * with the usage of the call that produced it, stored with it (docs/usage.md).
   */
  checkpoint(
    step: number,
    messages: ChatMessage[],
    events?: PendingEvent[],
    usage?: ModelCallUsage,
  ): Promise<void>;
  /**
   * `checkpoint` held back for the step's child starts to adopt (`RunEmitter.hold`): used for a step whose
   * every call only starts a child run, so the model's turn commits with the first child, not before it.
   */
  hold?(step: number, messages: ChatMessage[], events: PendingEvent[], usage?: ModelCallUsage): void;
  /**
   * Checkpoints the final answer and ends the run as completed in the same transaction. Returns the ended
   * run, or undefined when it could not be ended (its status moved, e.g. to a cancel); the checkpoint is
   * committed either way. Without it the final answer is only checkpointed and the caller ends the run.
   */
  finish?(
    step: number,
    messages: ChatMessage[],
    events: PendingEvent[],
    output: string,
    usage: ModelCallUsage,
  ): Promise<Run | undefined>;
  /** Called before each model call; may stop the run or return messages to add first (steering). */
  beforeStep?(step: number): Promise<ChatMessage[]>;
}

export type AgentLoopOutcome =
  | {
      kind: 'completed';
      output: string;
      /** Set when `finish` ended the run with its final checkpoint. */ ended?: Run;
    }
  | { kind: 'max_steps'; output: string }
  | { kind: 'input_required'; toolCallIds: string[] };

/**
 * The agent loop of SPEC §3: model call → tool calls (concurrently) → checkpoint → repeat, until the model
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

/**
 * Runs the calls of one step concurrently (SPEC §3). Each result is checkpointed and emitted as it lands;
 * calls waiting for a human decision are returned. An abort stops everything after the calls settle.
 * The step's `step` event commits with the result that completes the step (the last to land, when every
 * other call landed too): no commit of its own, and none at all for a step that parks for input.
 */
async function runToolCalls(
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

/** The step event's `model`: only when a fallback answered (the run's own model is in its `metadata`). */
function answeredBy(result: ModelCallResult): { model?: string } {
  return result.model === undefined ? {} : { model: result.model };
}

/**
 * Whether the call's only effect is a child run's start, whose transaction can carry the step's checkpoint:
 * a tool that says so (`adoptsCheckpoint`), called with input that parsed.
 */
function startsChildOnly(tools: ReadonlyMap<string, AnyTroupeTool>, call: ModelToolCall): boolean {
  return call.invalidInput === undefined && tools.get(call.toolName)?.adoptsCheckpoint === true;
}

function toolCallEvent(step: number, call: ModelToolCall, modelUsage?: ModelCallUsage): PendingEvent {
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

async function executeToolCall(options: AgentLoopOptions, call: ModelToolCall): Promise<ToolCallResult> {
  if (call.invalidInput !== undefined) {
    return { output: `Invalid arguments for tool ${call.toolName}: ${call.invalidInput}`, isError: true };
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
    if (error instanceof ToolRefusal) return { output: error.message, isError: true, refusal: error.refusal };
    return { output: toTroupeError(error).message, isError: true };
  }
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
      },
    ],
  };
}
