import { describe, expect, it } from 'vitest';
import type { TokenUsage } from '../../core/records/run.js';
import type { RunEventType } from '../../core/records/run-event.js';
import { fakeRun } from '../../../test/helpers/a2a/fake-run.js';
import type { ModelCallRequest, ModelCallResult, ToolCallRequest } from './agent-middleware.js';
import { createTokenUsageMiddleware } from './token-usage-middleware.js';

const request = { model: { spec: 'openai:gpt-4o' } } as unknown as ModelCallRequest;
const answer = (input: number, output: number, model?: string): ModelCallResult => ({
  text: '',
  toolCalls: [],
  usage: { input_tokens: input, output_tokens: output },
  finishReason: 'stop',
  ...(model ? { model } : {}),
});

describe('token usage middleware', () => {
  it("sums every call; once a fallback answers, it keeps what each model used, the run's own included", async () => {
    const meter = createTokenUsageMiddleware(null, 'openai:gpt-4o');
    const call = (result: ModelCallResult) => meter.wrapModelCall?.(request, () => Promise.resolve(result));
    await call(answer(10, 2));
    expect(meter.usage).toEqual({ input_tokens: 10, output_tokens: 2, total_tokens: 12, model_calls: 1 });
    await call(answer(20, 4, 'anthropic:claude'));
    await call(answer(5, 1));
    expect(meter.usage).toEqual({
      input_tokens: 35,
      output_tokens: 7,
      total_tokens: 42,
      model_calls: 3,
      by_model: {
        'openai:gpt-4o': { input_tokens: 15, output_tokens: 3, model_calls: 2 },
        'anthropic:claude': { input_tokens: 20, output_tokens: 4, model_calls: 1 },
      },
    });
  });

  it('a resumed attempt goes on from the stored usage, its per-model part included', async () => {
    const stored = {
      input_tokens: 1,
      output_tokens: 1,
      total_tokens: 2,
      model_calls: 1,
      by_model: { 'anthropic:claude': { input_tokens: 1, output_tokens: 1, model_calls: 1 } },
    };
    const meter = createTokenUsageMiddleware(stored, 'openai:gpt-4o');
    await meter.wrapModelCall?.(request, () => Promise.resolve(answer(3, 3)));
    expect(meter.usage.by_model).toEqual({
      'anthropic:claude': { input_tokens: 1, output_tokens: 1, model_calls: 1 },
      'openai:gpt-4o': { input_tokens: 3, output_tokens: 3, model_calls: 1 },
    });
    expect(stored.by_model['anthropic:claude'].model_calls).toBe(1);
  });

  it('saves the usage so far before a tool announces a wait for a human, and only then', async () => {
    const log: string[] = [];
    const meter = createTokenUsageMiddleware(null, 'openai:gpt-4o', {
      saveBeforeHumanWait: (usage: TokenUsage) => {
        log.push(`save ${usage.total_tokens}`);
        return Promise.resolve();
      },
    });
    await meter.wrapModelCall?.(request, () =>
      Promise.resolve({ usage: { input_tokens: 5, output_tokens: 2 } } as ModelCallResult),
    );
    const toolRequest = {
      run: fakeRun(),
      context: {
        emit: (type: RunEventType) => {
          log.push(`emit ${type}`);
          return Promise.resolve();
        },
      },
    } as unknown as ToolCallRequest;
    for (const type of ['tool_result', 'question_required', 'approval_required'] as const) {
      await meter.wrapToolCall?.(toolRequest, async (wrapped) => {
        await wrapped.context.emit(type, {});
        return { output: '', isError: false };
      });
    }
    expect(log).toEqual([
      'emit tool_result',
      'save 7',
      'emit question_required',
      'save 7',
      'emit approval_required',
    ]);
  });
});
