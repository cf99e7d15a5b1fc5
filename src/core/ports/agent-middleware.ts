import type { ChatMessage } from '../thread/chat-message.js';
import type { ResolvedModel } from './model-provider.js';
import type { ModelToolCall } from './model-stream.js';
import type { Agent } from '../records/agent.js';
import type { Run } from '../records/run.js';
import type { ModelCallUsage } from '../runs/run-usage.js';
import type { RunEventBody } from '../records/run-event.js';
import type { Refusal } from '../records/refusal.js';
import type { AnyTroupeTool, ToolContext, ToolOutput } from '../tools/troupe-tool.js';

export interface ModelCallRequest {
  run: Run;
  agent: Agent;
  step: number;
  system: string;
  messages: ChatMessage[];
  /** The tools the model is shown for this call; middleware may add or hide tools here. */
  tools: AnyTroupeTool[];
  model: ResolvedModel;
  abortSignal: AbortSignal;
  /**
   * Told of each retry and fallback inside this one logical call (the gateway, docs/model-calls.md): a layer
   * that wants them (tracing) passes its own listener on, calling the one it was given too.
   */
  observe?: (notice: ModelCallNotice) => void;
  /**
   * Streams nothing to the run: a call the run makes for itself (a compaction's summary), whose text is not
   * part of the answer.
   */
  silent?: boolean;
  /** The answer's token limit sent to the provider (an agent's `max_output_tokens`); its default otherwise. */
  maxOutputTokens?: number;
}

/**
 * A retry or a fallback inside a model call, as its run event (`model_retry`, `model_fallback`) carries it
 * (fields declared in `RUN_EVENT_BODIES`).
 */
export type ModelCallNotice =
  | ({ type: 'model_retry' } & RunEventBody<'model_retry'>)
  | ({ type: 'model_fallback' } & RunEventBody<'model_fallback'>)
  | ({ type: 'context_compacted' } & RunEventBody<'context_compacted'>);

export interface ModelCallResult {
  text: string;
  toolCalls: ModelToolCall[];
  usage: ModelCallUsage;
  finishReason: string;
  /** The spec of the model that answered, when it is not the request's (a fallback took the call). */
  model?: string;
}

export interface ToolCallRequest {
  run: Run;
  agent: Agent;
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** The tool registered under `toolName` for this run, if any (it may be hidden from the model). */
  tool: AnyTroupeTool | undefined;
  context: ToolContext;
}

export interface ToolCallResult {
  output: ToolOutput;
  isError: boolean;
  /** A refused call: the refusal as data, for its `tool_result` event (the model reads `output`). */
  refusal?: Refusal;
  /**
   * `unknown`: an external call that started before its worker stopped and was not run again
   * (docs/effects-and-forks.md#the-journal); its `tool_result` event and stored result say so.
   */
  outcome?: 'unknown';
}

/**
 * The one extension point of the agent loop (docs/agent-loop.md). Subagent tools, delegation, tool filtering,
 * approvals, token accounting and tracing are middleware, never special cases in the loop.
 * `tools` contributes tools to the run's registry (executable by name); `wrapModelCall` decides what the
 * model sees; `wrapToolCall` decides what actually executes. Middleware runs outermost-first.
 */
export interface AgentMiddleware {
  name: string;
  tools?: AnyTroupeTool[];
  wrapModelCall?(
    request: ModelCallRequest,
    next: (request: ModelCallRequest) => Promise<ModelCallResult>,
  ): Promise<ModelCallResult>;
  wrapToolCall?(
    request: ToolCallRequest,
    next: (request: ToolCallRequest) => Promise<ToolCallResult>,
  ): Promise<ToolCallResult>;
}
