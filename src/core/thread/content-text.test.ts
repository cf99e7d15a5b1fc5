import { describe, expect, it } from 'vitest';
import { contentText } from './content-text.js';

describe('contentText', () => {
  it('joins a model turn’s text parts as streamed, leaving out its reasoning and tool calls', () => {
    expect(
      contentText([
        { type: 'reasoning', text: 'thinking' },
        { type: 'text', text: 'Hello, ' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'ls', input: {} },
        { type: 'text', text: 'world' },
      ]),
    ).toBe('Hello, world');
  });

  it('answers string content as it is', () => {
    expect(contentText('plain')).toBe('plain');
  });
});
