import { describe, expect, it } from 'vitest';
import type { ChatMessage } from './chat-message.js';
import {
  clipText,
  compactionCut,
  compactionMarkerOf,
  promptView,
  promptViewOf,
  summaryMessage,
  SUMMARY_HEADING,
  transcriptEntries,
} from './compaction-summary.js';

const user = (text: string): ChatMessage => ({ role: 'user', content: text });
const answer = (text: string): ChatMessage => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string): ChatMessage => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: 'a.txt' } }],
});
const result = (id: string, value = 'contents'): ChatMessage => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'read_file', output: { type: 'text', value } }],
});

describe('summary messages', () => {
  it('are user messages with a marker and the heading', () => {
    const summary = summaryMessage('They talked.', { kept: 2, summarised: 5 });
    expect(summary.role).toBe('user');
    expect(summary.content).toBe(`${SUMMARY_HEADING}\n\nThey talked.`);
    expect(compactionMarkerOf(summary)).toEqual({ kept: 2, summarised: 5 });
    expect(compactionMarkerOf(user('hi'))).toBeUndefined();
  });
});

describe('promptView', () => {
  it('returns a thread without summaries as it is', () => {
    const thread = [user('a'), answer('b')];
    expect(promptView(thread)).toEqual(thread);
  });

  it('starts at the latest summary and keeps what each leaves, summaries over summaries', () => {
    const [a, b, c, d, e, f] = ['a', 'b', 'c', 'd', 'e', 'f'].map((text, index): ChatMessage =>
      index % 2 === 0 ? user(text) : answer(text),
    );
    const first = summaryMessage('a b', { kept: 2, summarised: 2 });
    // Thread order: the summary is appended where the compaction happened, after the kept c, d.
    const thread1 = [a, b, c, d, first, e] as ChatMessage[];
    expect(promptView(thread1)).toEqual([first, c, d, e]);
    const second = summaryMessage('a b c d', { kept: 1, summarised: 3 });
    const thread2 = [...thread1, f, second] as ChatMessage[];
    expect(promptView(thread2)).toEqual([second, f]);
    const rows = thread2.map((message, seq) => ({ seq, message }));
    expect(promptViewOf(rows, (row) => row.message).map((row) => row.seq)).toEqual([7, 6]);
  });
});

describe('compactionCut', () => {
  const tokens = () => 10;

  it('keeps the longest tail that fits, at least the last message', () => {
    const thread = [user('1'), answer('2'), user('3'), answer('4'), user('5')];
    expect(compactionCut(thread, tokens, 25)).toBe(3);
    expect(compactionCut(thread, tokens, 0)).toBe(4);
    expect(compactionCut(thread, tokens, 1_000)).toBe(1);
  });

  it('never splits a tool call from its result', () => {
    const thread = [user('1'), call('c1'), result('c1'), call('c2'), result('c2'), answer('done')];
    // 25 tokens would keep result(c2) and the answer: the cut moves back to c2's call... which does not fit,
    // so the tail is the answer alone.
    expect(compactionCut(thread, tokens, 25)).toBe(5);
    expect(compactionCut(thread, tokens, 30)).toBe(3);
    const onlyCalls = [user('1'), call('c1'), result('c1')];
    expect(compactionCut(onlyCalls, tokens, 0)).toBe(1);
  });

  it('summarises at least minSummarised messages, or gives up', () => {
    const thread = [summaryMessage('s', { kept: 0, summarised: 4 }), user('5')];
    expect(compactionCut(thread, tokens, 0, 2)).toBeUndefined();
    expect(compactionCut([user('only')], tokens, 0)).toBeUndefined();
  });
});

describe('transcriptEntries', () => {
  it('writes turns, calls and results out by name, long parts clipped head and tail', () => {
    const entries = transcriptEntries(
      [user('Read a.txt'), call('c1'), result('c1', 'x'.repeat(100)), answer('It says x.')],
      40,
    );
    expect(entries[0]).toBe('User: Read a.txt');
    expect(entries[1]).toBe('Assistant called read_file: {"path":"a.txt"}');
    expect(entries[2]).toMatch(/^Result of read_file: x{20}\n\[… 60 characters omitted …\]\nx{20}$/);
    expect(entries[3]).toBe('Assistant: It says x.');
  });

  it('clipText leaves short text alone', () => {
    expect(clipText('short', 10)).toBe('short');
  });
});
