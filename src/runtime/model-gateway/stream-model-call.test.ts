import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isTroupeError } from '../../core/errors.js';
import type { ModelCallRequest } from '../middleware/agent-middleware.js';
import { streamModelCall } from './stream-model-call.js';
import { defineTool } from '../tools/troupe-tool.js';

const USAGE = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A LanguageModelV3 that streams the given parts and records what it was called with. */
function modelStreaming(parts: LanguageModelV3StreamPart[] | Error) {
  const calls: LanguageModelV3CallOptions[] = [];
  const model: LanguageModelV3 = {
    specificationVersion: 'v3',
    provider: 'test',
    modelId: 'parts',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('not used')),
    doStream(options) {
      calls.push(options);
      if (parts instanceof Error) return Promise.reject(parts);
      return Promise.resolve({
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      });
    },
  };
  return { model, calls };
}

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a word up',
  inputSchema: z.object({ word: z.string().min(1), limit: z.number().int().default(3) }),
  execute: () => Promise.resolve({ output: '' }),
});

function request(model: LanguageModelV3, signal = new AbortController().signal): ModelCallRequest {
  return {
    system: 'Be brief.',
    messages: [{ role: 'user', content: 'Define "gist".' }],
    tools: [lookup],
    model: { model, spec: 'test:parts', provider: 'openai', label: 'test' },
    abortSignal: signal,
  } as unknown as ModelCallRequest;
}

const call = (id: string, toolName: string, input: string): LanguageModelV3StreamPart => ({
  type: 'tool-call',
  toolCallId: id,
  toolName,
  input,
});
const finish = (unified: 'stop' | 'tool-calls'): LanguageModelV3StreamPart => ({
  type: 'finish',
  usage: USAGE,
  finishReason: { unified, raw: unified },
});

describe('streamModelCall', () => {
  it('sends the converted prompt and the tool declarations, streams text and reports usage', async () => {
    const { model, calls } = modelStreaming([
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'A gist ' },
      { type: 'text-delta', id: 't', delta: 'is the core.' },
      { type: 'text-end', id: 't' },
      finish('stop'),
    ]);
    const deltas: string[] = [];
    const result = await streamModelCall(request(model), { onTextDelta: (text) => deltas.push(text) });
    expect(result).toEqual({
      text: 'A gist is the core.',
      toolCalls: [],
      usage: { input_tokens: 12, output_tokens: 5 },
      finishReason: 'stop',
    });
    expect(deltas).toEqual(['A gist ', 'is the core.']);
    const [sent] = calls;
    expect(sent?.prompt).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Define "gist".' }], providerOptions: undefined },
    ]);
    expect(sent?.tools).toHaveLength(1);
    expect(sent?.tools?.[0]).toMatchObject({
      type: 'function',
      name: 'lookup',
      description: 'Looks a word up',
      inputSchema: { type: 'object', required: ['word'] },
    });
    expect(sent?.toolChoice).toEqual({ type: 'auto' });
  });

  it('parses and validates tool calls like streamText: defaults applied, schema failures invalid, unoffered tools not', async () => {
    const { model } = modelStreaming([
      call('c1', 'lookup', '{"word":"gist"}'),
      call('c2', 'lookup', '{"word":""}'),
      call('c3', 'lookup', '{not json'),
      call('c4', 'delete_everything', '{"all":true}'),
      call('c5', 'lookup', ''),
      finish('tool-calls'),
    ]);
    const result = await streamModelCall(request(model), { onTextDelta: () => undefined });
    expect(result.finishReason).toBe('tool-calls');
    const [valid, empty, garbled, unoffered, blank] = result.toolCalls;
    expect(valid).toEqual({ toolCallId: 'c1', toolName: 'lookup', input: { word: 'gist', limit: 3 } });
    expect(empty).toMatchObject({ toolCallId: 'c2', input: { word: '' } });
    expect(empty?.invalidInput).toMatch(/Invalid input for tool lookup/);
    expect(garbled).toMatchObject({ toolCallId: 'c3', input: '{not json' });
    expect(garbled?.invalidInput).toMatch(/Invalid input for tool lookup/);
    expect(unoffered).toEqual({ toolCallId: 'c4', toolName: 'delete_everything', input: { all: true } });
    expect(blank?.invalidInput).toMatch(/Invalid input for tool lookup/);
  });

  it('turns a provider failure, before or during the stream, into model_call_failed', async () => {
    for (const { model } of [
      modelStreaming(new Error('503 from upstream')),
      modelStreaming([{ type: 'error', error: new Error('overloaded') }]),
    ]) {
      const failure: unknown = await streamModelCall(request(model), { onTextDelta: () => undefined }).catch(
        (error: unknown) => error,
      );
      expect(isTroupeError(failure, 'model_call_failed')).toBe(true);
      expect((failure as Error).message).toMatch(/^Model test:parts failed: (503 from upstream|overloaded)$/);
    }
  });

  it('an aborted call rejects with the abort reason, not a model failure', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled by the user');
    controller.abort(reason);
    const { model } = modelStreaming(new Error('aborted'));
    await expect(
      streamModelCall(request(model, controller.signal), { onTextDelta: () => undefined }),
    ).rejects.toBe(reason);
  });
});
