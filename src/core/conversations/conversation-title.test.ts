import { describe, expect, it } from 'vitest';
import { conversationTitle, DEFAULT_CONVERSATION_TITLE, GENERATED_TITLE_MAX } from './conversation-title.js';

describe('conversationTitle', () => {
  it('keeps a short message as it is, on one line', () => {
    expect(conversationTitle('  Plan the\n\n  release  ')).toBe('Plan the release');
  });

  it('drops Markdown heading, quote and list marks', () => {
    expect(conversationTitle('# Notes\n- first point\n> quoted\n2. second')).toBe(
      'Notes first point quoted second',
    );
  });

  it('cuts a long message at a word boundary, never inside a word', () => {
    const text = 'Summarise the quarterly report for the board and list every open risk with its owner';
    const title = conversationTitle(text);
    expect(title.length).toBeLessThanOrEqual(GENERATED_TITLE_MAX);
    expect(title).toBe('Summarise the quarterly report for the board and list every…');
    expect(text.startsWith(title.slice(0, -1))).toBe(true);
    expect(text[title.length - 1]).toBe(' ');
  });

  it('cuts inside a word only when the word is longer than half the room', () => {
    const title = conversationTitle(`short ${'x'.repeat(100)}`, 20);
    expect(title).toBe(`short ${'x'.repeat(13)}…`);
    expect(title.length).toBe(20);
  });

  it('is deterministic and falls back for blank text', () => {
    expect(conversationTitle('same words')).toBe(conversationTitle('same words'));
    expect(conversationTitle(' \n ')).toBe(DEFAULT_CONVERSATION_TITLE);
    expect(conversationTitle('', 80, 'A2A conversation')).toBe('A2A conversation');
  });
});
