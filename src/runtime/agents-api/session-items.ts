import type { ThreadMessage } from '../../core/records/thread-message.js';
import type { ToolResultOutput } from '../../core/thread/chat-message.js';
import type { ApiItem } from './agents-api-objects.js';

/** One item per message part; the id names the thread message and the part, so it is stable. */
function itemId(message: ThreadMessage, part: number): string {
  return `item_${message.seq}_${part}`;
}

function outputText(output: ToolResultOutput): { text: string | null; error: string | null } {
  switch (output.type) {
    case 'text':
      return { text: output.value, error: null };
    case 'json':
      return { text: JSON.stringify(output.value), error: null };
    case 'error-text':
      return { text: null, error: output.value };
    case 'error-json':
      return { text: null, error: JSON.stringify(output.value) };
    case 'execution-denied':
      return { text: null, error: output.reason ?? 'The call was denied' };
  }
}

/**
 * A thread's messages as the Agents API's items (docs/interoperability.md#openai-agents-api), oldest first: a
 * user message is a `message` with `input_text`; an assistant turn gives a `reasoning` item per reasoning
 * part, a `message` for its text (`phase` `final_answer` when the turn calls no tool, else `commentary`) and a
 * `function_call` per tool call; a tool message gives a `function_call_output` per result. System messages
 * and files are not items. A call without a result yet is `in_progress`.
 */
export function threadItems(messages: readonly ThreadMessage[]): ApiItem[] {
  const answered = new Set<string>();
  for (const { message } of messages) {
    if (message.role === 'tool' || message.role === 'assistant') {
      if (typeof message.content === 'string') continue;
      for (const part of message.content) if (part.type === 'tool-result') answered.add(part.toolCallId);
    }
  }
  const items: ApiItem[] = [];
  for (const entry of messages) {
    const { message } = entry;
    const turnId = entry.run_id ?? '';
    if (message.role === 'user') {
      const text =
        typeof message.content === 'string'
          ? message.content
          : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
      items.push({
        type: 'message',
        id: itemId(entry, 0),
        role: 'user',
        content: [{ type: 'input_text', text }],
        phase: null,
        status: 'completed',
        turn_id: turnId,
      });
      continue;
    }
    if (message.role === 'system') continue;
    const parts =
      typeof message.content === 'string'
        ? [{ type: 'text' as const, text: message.content }]
        : message.content;
    const callsTools = parts.some((part) => part.type === 'tool-call');
    parts.forEach((part, index) => {
      const id = itemId(entry, index);
      if (part.type === 'text' && part.text !== '') {
        items.push({
          type: 'message',
          id,
          role: 'assistant',
          content: [{ type: 'output_text', text: part.text }],
          phase: callsTools ? 'commentary' : 'final_answer',
          status: 'completed',
          turn_id: turnId,
        });
      } else if (part.type === 'reasoning') {
        items.push({
          type: 'reasoning',
          id,
          summary: [{ type: 'summary_text', text: part.text }],
          status: 'completed',
          turn_id: turnId,
        });
      } else if (part.type === 'tool-call') {
        items.push({
          type: 'function_call',
          id,
          call_id: part.toolCallId,
          name: part.toolName,
          arguments: part.input ?? null,
          status: answered.has(part.toolCallId) ? 'completed' : 'in_progress',
          turn_id: turnId,
        });
      } else if (part.type === 'tool-result') {
        const { text, error } = outputText(part.output);
        items.push({
          type: 'function_call_output',
          id,
          call_id: part.toolCallId,
          output: text,
          error,
          status: error === null ? 'completed' : 'failed',
          turn_id: turnId,
        });
      }
    });
  }
  return items;
}
