import {
  APICallError,
  type LanguageModelV3,
  type LanguageModelV3CallOptions,
  type LanguageModelV3StreamPart,
} from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ProviderCallError } from '../../../core/model-calls/provider-call-error.js';
import type { ModelStreamPart, ModelTool, ModelTurnRequest } from '../../../core/ports/model-stream.js';
import { streamLanguageModel } from './stream-language-model.js';

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

const lookup: ModelTool = {
  name: 'lookup',
  description: 'Looks a word up',
  inputSchema: z.object({ word: z.string().min(1), limit: z.number().int().default(3) }),
};

function request(signal = new AbortController().signal): ModelTurnRequest {
  return {
    system: 'Be brief.',
    messages: [{ role: 'user', content: 'Define "gist".' }],
    tools: [lookup],
    abortSignal: signal,
  };
}

async function collect(model: LanguageModelV3, turn = request()): Promise<ModelStreamPart[]> {
  const parts: ModelStreamPart[] = [];
  for await (const part of streamLanguageModel(model, turn)) parts.push(part);
  return parts;
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

describe('streamLanguageModel', () => {
  it('sends the converted prompt and the tool declarations, streams one part per provider part with usage', async () => {
    const { model, calls } = modelStreaming([
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'A gist ' },
      { type: 'text-delta', id: 't', delta: 'is the core.' },
      { type: 'text-end', id: 't' },
      finish('stop'),
    ]);
    expect(await collect(model)).toEqual([
      { type: 'other' },
      { type: 'other' },
      { type: 'text-delta', delta: 'A gist ' },
      { type: 'text-delta', delta: 'is the core.' },
      { type: 'other' },
      { type: 'finish', usage: { input_tokens: 12, output_tokens: 5 }, finishReason: 'stop' },
    ]);
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

  it('declares schemas without the $schema URL and safe-integer bounds, argument names kept, validation intact', async () => {
    const odd: ModelTool = {
      name: 'odd',
      description: 'Has an argument named like a schema keyword',
      inputSchema: z.object({ $schema: z.string(), count: z.number().int().min(1) }),
    };
    const { model, calls } = modelStreaming([
      { type: 'stream-start', warnings: [] },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'odd', input: '{"$schema":"x","count":0}' },
      finish('tool-calls'),
    ]);
    const parts = await collect(model, { ...request(), tools: [odd] });
    const schema = calls[0]?.tools?.[0] as { inputSchema: Record<string, unknown> } | undefined;
    expect(schema?.inputSchema).not.toHaveProperty('$schema');
    expect(schema?.inputSchema.properties).toEqual({
      $schema: { type: 'string' },
      count: { type: 'integer', minimum: 1 },
    });
    // The full schema still validates: count 0 is below its minimum.
    const call = parts.find((part) => part.type === 'tool-call');
    expect(call?.type === 'tool-call' ? call.call.invalidInput : undefined).toContain(
      'expected number to be >=1',
    );
  });

  it('offers no tools and no system message when there are none', async () => {
    const { model, calls } = modelStreaming([finish('stop')]);
    await collect(model, { ...request(), system: '', tools: [] });
    expect(calls[0]?.prompt).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Define "gist".' }], providerOptions: undefined },
    ]);
    expect(calls[0]).not.toHaveProperty('tools');
    expect(calls[0]).not.toHaveProperty('toolChoice');
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
    const parts = await collect(model);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', finishReason: 'tool-calls' });
    const [valid, empty, garbled, unoffered, blank] = parts.flatMap((part) =>
      part.type === 'tool-call' ? [part.call] : [],
    );
    expect(valid).toEqual({ toolCallId: 'c1', toolName: 'lookup', input: { word: 'gist', limit: 3 } });
    expect(empty).toMatchObject({ toolCallId: 'c2', input: { word: '' } });
    expect(empty?.invalidInput).toMatch(/Invalid input for tool lookup/);
    expect(garbled).toMatchObject({ toolCallId: 'c3', input: '{not json' });
    expect(garbled?.invalidInput).toMatch(/Invalid input for tool lookup/);
    expect(unoffered).toEqual({ toolCallId: 'c4', toolName: 'delete_everything', input: { all: true } });
    expect(blank?.invalidInput).toMatch(/Invalid input for tool lookup/);
  });

  it('passes a provider failure on: a rejection before the stream, an error part during it', async () => {
    const refused = new Error('503 from upstream');
    await expect(collect(modelStreaming(refused).model)).rejects.toBe(refused);
    const overloaded = new Error('overloaded');
    expect(await collect(modelStreaming([{ type: 'error', error: overloaded }]).model)).toEqual([
      { type: 'error', error: overloaded },
    ]);
  });

  it("reports the SDK's failures with a provider's answer as ProviderCallError, before or during the stream", async () => {
    const answer = new APICallError({
      message: 'Rate limit reached',
      url: 'http://127.0.0.1/v1/chat/completions',
      requestBodyValues: {},
      statusCode: 429,
      responseHeaders: { 'retry-after': '2' },
      data: { error: { type: 'rate_limit_error' } },
    });
    const thrown: unknown = await collect(modelStreaming(answer).model).catch((error: unknown) => error);
    const [part] = await collect(modelStreaming([{ type: 'error', error: answer }]).model);
    for (const failure of [thrown, part?.type === 'error' ? part.error : undefined]) {
      expect(failure).toBeInstanceOf(ProviderCallError);
      expect(failure).toMatchObject({
        message: 'Rate limit reached',
        statusCode: 429,
        responseHeaders: { 'retry-after': '2' },
        data: { error: { type: 'rate_limit_error' } },
        isRetryable: true,
        cause: answer,
      });
    }
  });

  it('ends with the abort reason when the signal aborts, even if the provider stream never ends', async () => {
    const controller = new AbortController();
    const model: LanguageModelV3 = {
      ...modelStreaming([]).model,
      doStream: () =>
        Promise.resolve({
          stream: new ReadableStream<LanguageModelV3StreamPart>({
            start(stream) {
              stream.enqueue({ type: 'text-delta', id: 't', delta: 'Hal' });
            },
          }),
        }),
    };
    const reason = new Error('cancelled by the user');
    const parts: ModelStreamPart[] = [];
    const ended = (async () => {
      for await (const part of streamLanguageModel(model, request(controller.signal))) {
        parts.push(part);
        controller.abort(reason);
      }
    })();
    await expect(ended).rejects.toBe(reason);
    expect(parts).toEqual([{ type: 'text-delta', delta: 'Hal' }]);
  });
});
