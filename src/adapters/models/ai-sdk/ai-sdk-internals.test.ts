import type { LanguageModelV3 } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import {
  PIXEL,
  THREAD_OF_EVERY_PART_KIND,
} from '../../../../test/helpers/models/thread-of-every-part-kind.js';
import { toLanguageModelPrompt, toTokenUsage } from './ai-sdk-internals.js';
import { toModelMessage } from './to-model-message.js';

/*
 * What `ai/internal` returns for Troupe's threads, pinned exactly: the SDK says that module can change in a patch
 * version, so an upgrade of `ai` that changes what providers are sent fails here first (docs/model-calls.md#the-ai-sdk).
 */

/** A provider that takes image URLs from example.test as they are (no download). */
const model = {
  specificationVersion: 'v3',
  provider: 'test',
  modelId: 'prompt',
  supportedUrls: { 'image/*': [/^https:\/\/example\.test\//] },
  doGenerate: () => Promise.reject(new Error('not used')),
  doStream: () => Promise.reject(new Error('not used')),
} satisfies LanguageModelV3;

describe('the AI SDK internals Troupe relies on', () => {
  it('convert a thread of every part kind to the exact LanguageModelV3 prompt', async () => {
    const prompt = await toLanguageModelPrompt(
      model,
      'Be brief.',
      THREAD_OF_EVERY_PART_KIND.map(toModelMessage),
      new AbortController().signal,
    );
    expect(prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: [{ type: 'text', text: 'Describe the picture and the report.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Here they are.' },
          { type: 'file', mediaType: 'image/png', data: PIXEL },
          { type: 'file', mediaType: 'image/*', data: new URL('https://example.test/cat.png') },
          { type: 'file', mediaType: 'application/pdf', filename: 'report.pdf', data: 'JVBERi0xLjQK' },
          {
            type: 'file',
            mediaType: 'text/plain',
            data: 'aGVsbG8=',
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
      // Consecutive tool messages become one.
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
            output: {
              type: 'json',
              value: { hits: [{ id: 1, score: 0.5, tags: ['a'], seen: null, ok: true }] },
            },
          },
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
      { role: 'assistant', content: [{ type: 'text', text: 'A cat, and a report.' }] },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'And furth' }],
        providerOptions: { troupe: { partial: true, run_status: 'cancelled' } },
      },
    ]);
  });

  it('leave the system message out when the system prompt is empty', async () => {
    const prompt = await toLanguageModelPrompt(
      model,
      '',
      [{ role: 'user', content: 'hi' }],
      new AbortController().signal,
    );
    expect(prompt).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi' }] }]);
  });

  it('count a call’s input and output tokens from the provider’s usage, cached and reasoning included', () => {
    expect(
      toTokenUsage({
        inputTokens: { total: 12, noCache: 8, cacheRead: 4, cacheWrite: undefined },
        outputTokens: { total: 5, text: 3, reasoning: 2 },
      }),
    ).toEqual({ input_tokens: 12, output_tokens: 5, cache_read_tokens: 4, reasoning_tokens: 2 });
    expect(
      toTokenUsage({
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      }),
    ).toEqual({ input_tokens: 0, output_tokens: 0 });
  });
});
