import type { z } from 'zod';
import type { ModelCallUsage } from '../runs/run-usage.js';
import type { ChatMessage } from '../thread/chat-message.js';

/** A tool as a model is offered it: its JSON schema is derived from `inputSchema`, which also checks calls. */
export interface ModelTool {
  name: string;
  description: string;
  inputSchema: z.ZodType;
}

/** One model turn's prompt (docs/agent-loop.md#one-model-call). */
export interface ModelTurnRequest {
  system: string;
  messages: readonly ChatMessage[];
  tools: readonly ModelTool[];
  abortSignal: AbortSignal;
  /**
   * Set when the prompt may be cached by the provider: the key of the prompt's cache (its thread). Anthropic
   * requests then carry `cache_control` breakpoints, OpenAI requests this `prompt_cache_key`
   * (docs/model-calls.md#prompt-caching).
   */
  cacheKey?: string;
  /** The answer's token limit sent to the provider; the provider's default when undefined. */
  maxOutputTokens?: number;
}

export interface ModelToolCall {
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Set when the model's arguments did not parse or match the schema: the call is answered with an error. */
  invalidInput?: string;
  /** The output limit cut the call's arguments: it is answered with an error saying so, never run. */
  cutOff?: boolean;
}

/**
 * What a model streams for one turn, one part per part the provider sent. `other` stands for the parts the
 * loop does not use (reasoning, tool-input deltas, metadata…): they still show that the provider is sending.
 */
export type ModelStreamPart =
  | { type: 'text-delta'; delta: string }
  /** Parsed and checked against the offered tool's schema; a call to a tool not offered is passed on as is. */
  | { type: 'tool-call'; call: ModelToolCall }
  | {
      type: 'finish';
      usage: ModelCallUsage;
      /** The provider's finish reason in the SDK's words: `stop`, `tool-calls`, `length`, … */
      finishReason: string;
    }
  | { type: 'error'; error: unknown }
  | { type: 'other' };
