import type { ModelMessage } from 'ai';
import type { ResolvedModel } from '../../core/ports/model-provider.js';
import type { Agent } from '../../core/records/agent.js';
import type { Run, TokenUsage } from '../../core/records/run.js';
import type { AnyTroupeTool, ToolContext, ToolOutput } from '../tools/troupe-tool.js';

export interface ModelCallRequest {
  run: Run;
  agent: Agent;
  step: number;
  system: string;
  messages: ModelMessage[];
  /** The tools the model is shown for this call; middleware may add or hide tools here. */
  tools: AnyTroupeTool[];
  model: ResolvedModel;
  abortSignal: AbortSignal;
}

export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Set when the model's arguments did not parse or match the schema: the call is answered with an error. */
  invalidInput?: string;
}

export interface ModelCallResult {
  text: string;
  toolCalls: ModelToolCall[];
  usage: Pick<TokenUsage, 'input_tokens' | 'output_tokens'>;
  finishReason: string;
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
}

/**
 * The one extension point of the agent loop (SPEC §3). Subagent tools, delegation, tool filtering,
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
