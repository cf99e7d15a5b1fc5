/*
 * Troupe's own message shape: what a thread stores (as JSON, one row per message) and what a model call is
 * prompted with (docs/records-and-access.md#threads). It is the JSON the AI SDK's `ModelMessage` gives for
 * what the loop writes, declared here so that an SDK upgrade changes the models adapter's mapping
 * (`src/adapters/models/ai-sdk/`), never the stored rows. Binary data is stored as a base64 string or a URL,
 * as JSON holds it. A new part or output kind goes here and into that mapping together.
 */

/** A JSON value as `JSON.parse` gives it back (an object's `undefined` members are dropped when stored). */
export type JsonValue = null | string | number | boolean | JsonObject | JsonValue[];
export interface JsonObject {
  [key: string]: JsonValue | undefined;
}

/** Options by provider name, passed to the provider as they are; providers ignore names not theirs. */
export type ProviderOptions = Record<string, JsonObject>;

/** The `providerOptions` name under which Troupe keeps its own marks on a stored message or part. */
export const TROUPE_OPTIONS_KEY = 'troupe';

export interface TextPart {
  type: 'text';
  text: string;
  providerOptions?: ProviderOptions;
}

/** What a reasoning model thought before its answer, as its provider returned it. */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  providerOptions?: ProviderOptions;
}

export interface ImagePart {
  type: 'image';
  /** Base64 data, or a URL. */
  image: string;
  mediaType?: string;
  providerOptions?: ProviderOptions;
}

export interface FilePart {
  type: 'file';
  /** Base64 data, or a URL. */
  data: string;
  mediaType: string;
  filename?: string;
  providerOptions?: ProviderOptions;
}

export interface ToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  /** The call's arguments: a JSON object (docs/agent-loop.md#the-loop). */
  input: unknown;
  /** A call the provider ran itself: its result is in the same assistant turn. */
  providerExecuted?: boolean;
  providerOptions?: ProviderOptions;
}

/** What a tool call returned: text as is, JSON, or an error the model reads. */
export type ToolResultOutput =
  | { type: 'text'; value: string; providerOptions?: ProviderOptions }
  | { type: 'json'; value: JsonValue; providerOptions?: ProviderOptions }
  | { type: 'error-text'; value: string; providerOptions?: ProviderOptions }
  | { type: 'error-json'; value: JsonValue; providerOptions?: ProviderOptions }
  | { type: 'execution-denied'; reason?: string; providerOptions?: ProviderOptions };

export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: ToolResultOutput;
  providerOptions?: ProviderOptions;
}

export interface SystemChatMessage {
  role: 'system';
  content: string;
  providerOptions?: ProviderOptions;
}

export interface UserChatMessage {
  role: 'user';
  content: string | (TextPart | ImagePart | FilePart)[];
  providerOptions?: ProviderOptions;
}

export interface AssistantChatMessage {
  role: 'assistant';
  content: string | (TextPart | ReasoningPart | FilePart | ToolCallPart | ToolResultPart)[];
  /** `troupe` holds the partial-answer marker (`src/core/thread/partial-answer.ts`). */
  providerOptions?: ProviderOptions;
}

export interface ToolChatMessage {
  role: 'tool';
  content: ToolResultPart[];
  providerOptions?: ProviderOptions;
}

/** One message of a thread or a prompt. */
export type ChatMessage = SystemChatMessage | UserChatMessage | AssistantChatMessage | ToolChatMessage;
