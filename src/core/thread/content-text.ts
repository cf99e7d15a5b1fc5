import type { ChatMessage } from './chat-message.js';

/**
 * A message's text: its string content, or its text parts joined with nothing between them, as a model turn
 * streamed them (its tool calls, reasoning and files left out).
 */
export function contentText(content: ChatMessage['content']): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}
