import type { ChatMessage, ToolChatMessage } from './chat-message.js';

/** A tool call of an assistant turn, as far as pairing it with its result is concerned. */
export interface OpenToolCall {
  toolCallId: string;
  toolName: string;
}

/** What the model reads for a call whose run ended without a result, when the real reason is not known. */
export const UNFINISHED_TOOL_CALL_TEXT =
  'Tool call not completed: the run that made it ended before it returned a result';

/** One tool message answering each call with an error result that says why it never got a real one. */
export function closingToolMessage(calls: readonly OpenToolCall[], reason: string): ToolChatMessage {
  return {
    role: 'tool',
    content: calls.map((call) => ({
      type: 'tool-result' as const,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      output: { type: 'error-text' as const, value: reason },
    })),
  };
}

function callsOf(message: ChatMessage): OpenToolCall[] {
  if (message.role !== 'assistant' || typeof message.content === 'string') return [];
  const calls: OpenToolCall[] = [];
  for (const part of message.content) {
    // A provider-executed call carries its own result inside the assistant turn.
    if (part.type === 'tool-call' && part.providerExecuted !== true) {
      calls.push({ toolCallId: part.toolCallId, toolName: part.toolName });
    }
  }
  return calls;
}

/**
 * Walks a message list the way providers read it: the calls of an assistant turn stay open until their
 * results arrive, and must all be answered before the next assistant, user or system message.
 */
function walk(
  messages: readonly ChatMessage[],
  onClose: (open: Map<string, OpenToolCall>, out: ChatMessage[]) => void,
): { out: ChatMessage[]; open: Map<string, OpenToolCall>; changed: boolean } {
  const out: ChatMessage[] = [];
  let open = new Map<string, OpenToolCall>();
  let changed = false;
  for (const message of messages) {
    if (message.role === 'tool') {
      const kept: ToolChatMessage['content'] = [];
      for (const part of message.content) {
        if (part.type !== 'tool-result') kept.push(part);
        // A result for no open call (a duplicate, or one stored after another turn) would be rejected.
        else if (open.delete(part.toolCallId)) kept.push(part);
        else changed = true;
      }
      if (kept.length === message.content.length) out.push(message);
      else if (kept.length > 0) out.push({ ...message, content: kept });
      continue;
    }
    if (open.size > 0) {
      onClose(open, out);
      changed = true;
      open = new Map();
    }
    out.push(message);
    for (const call of callsOf(message)) open.set(call.toolCallId, call);
  }
  return { out, open, changed };
}

/** The calls still waiting for a result at the end of `messages` (those of the last assistant turn). */
export function openToolCallsAtEnd(messages: readonly ChatMessage[]): OpenToolCall[] {
  return [...walk(messages, () => undefined).open.values()];
}

/**
 * Makes a stored thread a prompt every provider accepts: each tool call of an assistant turn gets exactly
 * one result before the next non-tool message. A call that never got one (a thread stored before runs
 * closed their calls on ending) gets an error result right after its turn; stray and duplicate results
 * are dropped. `keepOpen` names calls at the end that the current run is about to execute. A valid
 * thread comes back as the same array.
 */
export function repairToolCallPairs(
  messages: ChatMessage[],
  keepOpen: ReadonlySet<string> = new Set(),
): ChatMessage[] {
  const close = (open: Map<string, OpenToolCall>, out: ChatMessage[]) =>
    out.push(closingToolMessage([...open.values()], UNFINISHED_TOOL_CALL_TEXT));
  const { out, open, changed } = walk(messages, close);
  for (const id of keepOpen) open.delete(id);
  if (open.size > 0) {
    close(open, out);
    return out;
  }
  return changed ? out : messages;
}
