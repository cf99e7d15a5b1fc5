import type { AssistantModelMessage, ModelMessage, ToolModelMessage } from 'ai';
import { toTroupeError } from '../core/errors.js';
import type { ResolvedModel } from '../core/ports/model-provider.js';
import type { Agent } from '../core/records/agent.js';
import type { Run } from '../core/records/run.js';
import type { ModelToolCall, ToolCallResult } from './middleware/agent-middleware.js';
import type { ComposedMiddleware } from './middleware/compose-middleware.js';
import type { RunEmitter } from './run-emitter.js';
import type { AnyTroupeTool, ToolContext } from './tools/troupe-tool.js';

export interface AgentLoopOptions {
  run: Run;
  agent: Agent;
  model: ResolvedModel;
  system: string;
  /** The thread so far, ending with the input (or with the last checkpointed step when resuming). */
  messages: ModelMessage[];
  /** Every tool registered for the run, by name; what the model sees is decided by middleware. */
  tools: ReadonlyMap<string, AnyTroupeTool>;
  chain: ComposedMiddleware;
  emitter: RunEmitter;
  abortSignal: AbortSignal;
  workdir: string;
  /** First step to execute: 1 for a new run, last checkpointed step + 1 when resuming. */
  firstStep: number;
  maxSteps: number;
  /** Persists the messages of one finished step atomically: the checkpoint. */
  checkpoint(step: number, messages: ModelMessage[]): Promise<void>;
  /** Called between steps; lets the executor stop at a step boundary (durable cancel check). */
  beforeStep?(step: number): Promise<void>;
}

export interface AgentLoopOutcome {
  kind: 'completed' | 'max_steps';
  /** The final answer, or the last text the model produced before the step limit. */
  output: string;
}

/**
 * The agent loop of SPEC §3: model call → tool calls (concurrently) → checkpoint → repeat, until the
 * model answers without tool calls or `maxSteps` is reached. Cancellation is the abort signal.
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopOutcome> {
  const { run, agent, chain, emitter, abortSignal } = options;
  const messages = [...options.messages];
  let lastText = '';

  for (let step = options.firstStep; step <= options.maxSteps; step++) {
    abortSignal.throwIfAborted();
    await options.beforeStep?.(step);
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
    await emitter.flush();
    lastText = result.text;

    const assistant = toAssistantMessage(result.text, result.toolCalls);
    if (result.toolCalls.length === 0) {
      await options.checkpoint(step, [assistant]);
      await emitter.emit('step', { step, tool_calls: 0, finish_reason: result.finishReason, usage: result.usage });
      return { kind: 'completed', output: result.text };
    }

    for (const call of result.toolCalls) {
      await emitter.emit('tool_call', { step, tool_call_id: call.toolCallId, name: call.toolName, args: call.input });
    }
    // Parallel tool calls of one step run concurrently (SPEC §3); results keep the model's order.
    const results = await Promise.all(result.toolCalls.map((call) => executeToolCall(options, call)));
    abortSignal.throwIfAborted();
    for (const [index, call] of result.toolCalls.entries()) {
      const outcome = results[index] ?? { output: 'tool produced no result', isError: true };
      await emitter.emit('tool_result', {
        step,
        tool_call_id: call.toolCallId,
        name: call.toolName,
        output: outcome.output,
        is_error: outcome.isError,
      });
    }
    const toolMessage = toToolMessage(result.toolCalls, results);
    await options.checkpoint(step, [assistant, toolMessage]);
    messages.push(assistant, toolMessage);
    await emitter.emit('step', {
      step,
      tool_calls: result.toolCalls.length,
      finish_reason: result.finishReason,
      usage: result.usage,
    });
  }
  return { kind: 'max_steps', output: lastText };
}

async function executeToolCall(options: AgentLoopOptions, call: ModelToolCall): Promise<ToolCallResult> {
  if (call.invalidInput !== undefined) {
    return { output: `Invalid arguments for tool ${call.toolName}: ${call.invalidInput}`, isError: true };
  }
  const context: ToolContext = {
    run: options.run,
    toolCallId: call.toolCallId,
    abortSignal: options.abortSignal,
    emit: async (type, payload) => {
      await options.emitter.emit(type, { tool_call_id: call.toolCallId, ...payload });
    },
    workdir: options.workdir,
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
    // An abort is the run's business; any other tool failure is data for the model (house style §6.3).
    options.abortSignal.throwIfAborted();
    return { output: toTroupeError(error).message, isError: true };
  }
}

function toAssistantMessage(text: string, toolCalls: ModelToolCall[]): AssistantModelMessage {
  const content: AssistantModelMessage['content'] = [];
  if (text !== '') content.push({ type: 'text', text });
  for (const call of toolCalls) {
    content.push({ type: 'tool-call', toolCallId: call.toolCallId, toolName: call.toolName, input: call.input });
  }
  return { role: 'assistant', content };
}

function toToolMessage(calls: ModelToolCall[], results: ToolCallResult[]): ToolModelMessage {
  return {
    role: 'tool',
    content: calls.map((call, index) => {
      const result = results[index];
      const output = result?.output ?? null;
      return {
        type: 'tool-result' as const,
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: result?.isError
          ? { type: 'error-text' as const, value: typeof output === 'string' ? output : JSON.stringify(output) }
          : typeof output === 'string'
            ? { type: 'text' as const, value: output }
            : { type: 'json' as const, value: output },
      };
    }),
  };
}
