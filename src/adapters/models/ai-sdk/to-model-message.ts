import type { SharedV3ProviderOptions as SdkProviderOptions } from '@ai-sdk/provider';
import type {
  AssistantModelMessage,
  DataContent,
  FilePart as SdkFilePart,
  ModelMessage,
  ToolResultPart as SdkToolResultPart,
  UserModelMessage,
} from 'ai';
import type {
  AssistantChatMessage,
  ChatMessage,
  FilePart,
  ProviderOptions,
  ToolResultOutput,
  ToolResultPart,
  UserChatMessage,
} from '../../../core/thread/chat-message.js';

/*
 * Troupe's message shape (src/core/thread/chat-message.ts) to and from the AI SDK's `ModelMessage`: the one
 * place that knows both. Today they hold the same JSON, part by part; when an SDK upgrade changes its shape,
 * this mapping changes and stored threads do not (docs/model-calls.md#the-ai-sdk). Every part is copied kind
 * by kind, so the compiler flags a kind the SDK drops or renames, and a kind Troupe does not store is refused.
 */

/** `{providerOptions}` when there are any: a copy has no `undefined` member the original did not have. */
function options(providerOptions: ProviderOptions | SdkProviderOptions | undefined): {
  providerOptions?: ProviderOptions;
} {
  return providerOptions === undefined ? {} : { providerOptions };
}

function notStorable(what: string): TypeError {
  return new TypeError(`A thread cannot store ${what}: add it to src/core/thread/chat-message.ts first`);
}

/** Binary data as JSON holds it: a URL's text, or base64. */
function dataText(data: DataContent | URL): string {
  if (typeof data === 'string') return data;
  if (data instanceof URL) return data.href;
  return Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data).toString('base64');
}

function fromOutput(output: SdkToolResultPart['output']): ToolResultOutput {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return { type: output.type, value: output.value, ...options(output.providerOptions) };
    case 'json':
    case 'error-json':
      return { type: output.type, value: output.value, ...options(output.providerOptions) };
    case 'execution-denied':
      return {
        type: 'execution-denied',
        ...(output.reason === undefined ? {} : { reason: output.reason }),
        ...options(output.providerOptions),
      };
    case 'content':
      throw notStorable('a tool result of content parts');
  }
}

function fromToolResult(part: SdkToolResultPart): ToolResultPart {
  return {
    type: 'tool-result',
    toolCallId: part.toolCallId,
    toolName: part.toolName,
    output: fromOutput(part.output),
    ...options(part.providerOptions),
  };
}

function fromFile(part: SdkFilePart): FilePart {
  return {
    type: 'file',
    data: dataText(part.data),
    mediaType: part.mediaType,
    ...(part.filename === undefined ? {} : { filename: part.filename }),
    ...options(part.providerOptions),
  };
}

function fromUserContent(content: UserModelMessage['content']): UserChatMessage['content'] {
  if (typeof content === 'string') return content;
  return content.map((part) => {
    switch (part.type) {
      case 'text':
        return { type: 'text', text: part.text, ...options(part.providerOptions) };
      case 'image':
        return {
          type: 'image',
          image: dataText(part.image),
          ...(part.mediaType === undefined ? {} : { mediaType: part.mediaType }),
          ...options(part.providerOptions),
        };
      case 'file':
        return fromFile(part);
    }
  });
}

function fromAssistantContent(content: AssistantModelMessage['content']): AssistantChatMessage['content'] {
  if (typeof content === 'string') return content;
  return content.map((part) => {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        return { type: part.type, text: part.text, ...options(part.providerOptions) };
      case 'file':
        return fromFile(part);
      case 'tool-call':
        return {
          type: 'tool-call',
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          input: part.input,
          ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
          ...options(part.providerOptions),
        };
      case 'tool-result':
        return fromToolResult(part);
      case 'tool-approval-request':
        throw notStorable(
          'a tool approval request (approvals are Troupe’s own, docs/agent-loop.md#approvals)',
        );
    }
  });
}

/** An AI SDK message as a thread stores it; throws a TypeError for a part Troupe's shape does not have. */
export function fromModelMessage(message: ModelMessage): ChatMessage {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content, ...options(message.providerOptions) };
    case 'user':
      return { role: 'user', content: fromUserContent(message.content), ...options(message.providerOptions) };
    case 'assistant':
      return {
        role: 'assistant',
        content: fromAssistantContent(message.content),
        ...options(message.providerOptions),
      };
    case 'tool':
      return {
        role: 'tool',
        content: message.content.map((part) => {
          if (part.type === 'tool-approval-response') throw notStorable('a tool approval response');
          return fromToolResult(part);
        }),
        ...options(message.providerOptions),
      };
  }
}

/**
 * A stored message as the AI SDK takes it. Today Troupe's shape is a part of the SDK's, so the copy is the
 * one above (the compiler checks that every Troupe kind is still an SDK kind); an SDK that renames or reshapes
 * a kind gets its own mapping here.
 */
export function toModelMessage(message: ChatMessage): ModelMessage {
  return fromModelMessage(message);
}
