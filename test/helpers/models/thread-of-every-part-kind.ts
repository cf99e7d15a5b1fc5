import type { ChatMessage } from '../../../src/core/thread/chat-message.js';

/** A 1×1 transparent PNG, base64. */
export const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/**
 * A thread holding every message role, part kind and tool-result output kind Troupe's shape has
 * (src/core/thread/chat-message.ts), with and without their optional fields, as stored JSON: what the
 * models adapter's mapping and prompt conversion are checked against.
 */
export const THREAD_OF_EVERY_PART_KIND: ChatMessage[] = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'Describe the picture and the report.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Here they are.' },
      { type: 'image', image: PIXEL, mediaType: 'image/png' },
      { type: 'image', image: 'https://example.test/cat.png' },
      { type: 'file', data: 'JVBERi0xLjQK', mediaType: 'application/pdf', filename: 'report.pdf' },
      {
        type: 'file',
        data: 'aGVsbG8=',
        mediaType: 'text/plain',
        providerOptions: { anthropic: { citations: true } },
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Two attachments; look both up.' },
      { type: 'text', text: 'Looking.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'notes.md' } },
      { type: 'tool-call', toolCallId: 'c2', toolName: 'search', input: { query: 'cat', limit: 2 } },
      { type: 'tool-call', toolCallId: 'c3', toolName: 'execute', input: { command: 'false' } },
      { type: 'tool-call', toolCallId: 'c4', toolName: 'fetch', input: {} },
      { type: 'tool-call', toolCallId: 'c5', toolName: 'write_file', input: { path: 'a', content: 'b' } },
      {
        type: 'tool-call',
        toolCallId: 'c6',
        toolName: 'web_search',
        input: { q: 'cats' },
        providerExecuted: true,
      },
      {
        type: 'tool-result',
        toolCallId: 'c6',
        toolName: 'web_search',
        output: { type: 'json', value: [{ url: 'https://example.test/', title: 'Cats' }] },
      },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c1',
        toolName: 'read_file',
        output: { type: 'text', value: '# Notes' },
      },
      {
        type: 'tool-result',
        toolCallId: 'c2',
        toolName: 'search',
        output: { type: 'json', value: { hits: [{ id: 1, score: 0.5, tags: ['a'], seen: null, ok: true }] } },
      },
    ],
  },
  {
    role: 'tool',
    content: [
      {
        type: 'tool-result',
        toolCallId: 'c3',
        toolName: 'execute',
        output: { type: 'error-text', value: 'exit status 1' },
      },
      {
        type: 'tool-result',
        toolCallId: 'c4',
        toolName: 'fetch',
        output: { type: 'error-json', value: { code: 'egress_denied', host: 'example.test' } },
      },
      {
        type: 'tool-result',
        toolCallId: 'c5',
        toolName: 'write_file',
        output: { type: 'execution-denied', reason: 'The user rejected it' },
      },
    ],
  },
  { role: 'assistant', content: 'A cat, and a report.' },
  {
    role: 'assistant',
    content: [{ type: 'text', text: 'And furth' }],
    providerOptions: { troupe: { partial: true, run_status: 'cancelled' } },
  },
];
