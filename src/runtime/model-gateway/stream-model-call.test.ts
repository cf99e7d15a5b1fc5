import { describe, expect, it } from 'vitest';
import { isTroupeError } from '../../core/errors.js';
import type { ResolvedModel } from '../../core/ports/model-provider.js';
import type { ModelStreamPart, ModelTurnRequest } from '../../core/ports/model-stream.js';
import type { ModelCallRequest } from '../../core/ports/agent-middleware.js';
import { streamModelCall } from './stream-model-call.js';

/** A model that streams the given parts (or fails before streaming) and records the turns it was asked for. */
function modelStreaming(parts: ModelStreamPart[] | Error) {
  const turns: ModelTurnRequest[] = [];
  const model: ResolvedModel = {
    spec: 'test:parts',
    provider: 'openai',
    label: 'test',
    limitKey: { provider: 'test', model: 'parts' },
    async *stream(turn) {
      turns.push(turn);
      await Promise.resolve();
      if (parts instanceof Error) throw parts;
      yield* parts;
    },
  };
  return { model, turns };
}

function request(model: ResolvedModel, signal = new AbortController().signal): ModelCallRequest {
  return {
    system: 'Be brief.',
    messages: [{ role: 'user', content: 'Define "gist".' }],
    tools: [],
    model,
    abortSignal: signal,
    run: { thread_id: 'thread_1' },
    agent: { config: {} },
  } as unknown as ModelCallRequest;
}

const USAGE = { input_tokens: 12, output_tokens: 5 };

describe('streamModelCall', () => {
  it('asks the model for the turn, streams text, collects tool calls and reports usage', async () => {
    const calls = [
      { toolCallId: 'c1', toolName: 'lookup', input: { word: 'gist' } },
      { toolCallId: 'c2', toolName: 'lookup', input: '{', invalidInput: 'Invalid input for tool lookup' },
    ];
    const { model, turns } = modelStreaming([
      { type: 'other' },
      { type: 'text-delta', delta: 'A gist ' },
      { type: 'text-delta', delta: 'is the core.' },
      ...calls.map((call) => ({ type: 'tool-call' as const, call })),
      { type: 'finish', usage: USAGE, finishReason: 'tool-calls' },
    ]);
    const deltas: string[] = [];
    const seen: string[] = [];
    const result = await streamModelCall(request(model), {
      onTextDelta: (text) => deltas.push(text),
      onPart: (type) => seen.push(type),
    });
    expect(result).toEqual({
      text: 'A gist is the core.',
      toolCalls: calls,
      usage: USAGE,
      finishReason: 'tool-calls',
    });
    expect(deltas).toEqual(['A gist ', 'is the core.']);
    expect(seen).toEqual(['other', 'text-delta', 'text-delta', 'tool-call', 'tool-call', 'finish']);
    expect(turns).toEqual([
      {
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'Define "gist".' }],
        tools: [],
        abortSignal: expect.any(AbortSignal) as AbortSignal,
        // Caching is on unless the agent turns it off: the thread is the prompt's cache key.
        cacheKey: 'thread_1',
      },
    ]);
  });

  it('a stream without a finish part reports no usage and the finish reason "other"', async () => {
    const { model } = modelStreaming([{ type: 'text-delta', delta: 'cut' }]);
    const result = await streamModelCall(request(model), { onTextDelta: () => undefined });
    expect(result).toEqual({
      text: 'cut',
      toolCalls: [],
      usage: { input_tokens: 0, output_tokens: 0 },
      finishReason: 'other',
    });
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
