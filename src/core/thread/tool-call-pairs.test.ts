import type { ChatMessage } from './chat-message.js';
import { describe, expect, it } from 'vitest';
import {
  closingToolMessage,
  openToolCallsAtEnd,
  repairToolCallPairs,
  UNFINISHED_TOOL_CALL_TEXT,
} from './tool-call-pairs.js';

const call = (...ids: string[]): ChatMessage => ({
  role: 'assistant',
  content: ids.map((id) => ({ type: 'tool-call' as const, toolCallId: id, toolName: 'ls', input: {} })),
});
const result = (id: string, value = 'ok'): ChatMessage => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'ls', output: { type: 'text', value } }],
});
const user = (text: string): ChatMessage => ({ role: 'user', content: text });

function shape(messages: ChatMessage[]): string[] {
  return messages.map((message) =>
    message.role === 'tool'
      ? `tool:${message.content.map((part) => (part.type === 'tool-result' ? `${part.toolCallId}${part.output.type === 'error-text' ? '!' : ''}` : '?')).join(',')}`
      : message.role === 'assistant' && typeof message.content !== 'string'
        ? `assistant:${message.content.map((part) => (part.type === 'tool-call' ? part.toolCallId : 'text')).join(',')}`
        : message.role,
  );
}

describe('tool call pairs', () => {
  it('returns a valid thread as the same array', () => {
    const messages = [user('a'), call('c1', 'c2'), result('c2'), result('c1'), user('b')];
    expect(repairToolCallPairs(messages)).toBe(messages);
  });

  it('answers a dangling call right after its turn, before the next user message', () => {
    const repaired = repairToolCallPairs([user('a'), call('c1', 'c2'), result('c1'), user('b')]);
    expect(shape(repaired)).toEqual(['user', 'assistant:c1,c2', 'tool:c1', 'tool:c2!', 'user']);
    expect(JSON.stringify(repaired[3])).toContain(UNFINISHED_TOOL_CALL_TEXT);
  });

  it('drops duplicate and stray results, and results stored after another turn', () => {
    const repaired = repairToolCallPairs([
      user('a'),
      call('c1'),
      result('c1'),
      result('c1', 'again'),
      result('zz'),
      call('c2'),
      result('c1'),
      result('c2'),
    ]);
    expect(shape(repaired)).toEqual(['user', 'assistant:c1', 'tool:c1', 'assistant:c2', 'tool:c2']);
  });

  it('lets a later turn reuse an id (local models often number calls from 0 each turn)', () => {
    const messages = [user('a'), call('call_0'), result('call_0'), call('call_0'), result('call_0')];
    expect(repairToolCallPairs(messages)).toBe(messages);
  });

  it('keeps open only the calls at the end the current run is about to execute', () => {
    const messages = [user('a'), call('c1', 'c2')];
    expect(shape(repairToolCallPairs(messages, new Set(['c1'])))).toEqual([
      'user',
      'assistant:c1,c2',
      'tool:c2!',
    ]);
    expect(repairToolCallPairs(messages, new Set(['c1', 'c2']))).toBe(messages);
  });

  it('lists the calls still open at the end, and closes them with one error result each', () => {
    const open = openToolCallsAtEnd([user('a'), call('c1'), result('c1'), call('c2', 'c3'), result('c3')]);
    expect(open).toEqual([{ toolCallId: 'c2', toolName: 'ls' }]);
    expect(closingToolMessage(open, 'why')).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c2',
          toolName: 'ls',
          output: { type: 'error-text', value: 'why' },
        },
      ],
    });
  });
});
