import { describe, expect, it } from 'vitest';
import type { TokenUsage } from '../../core/records/run.js';
import { createRunUsageMeter } from './run-usage-meter.js';

describe('run usage meter: which model answered', () => {
  it("sums every call; once a fallback answers, it keeps what each model used, the run's own included", () => {
    const meter = createRunUsageMeter(null, 'openai:gpt-4o');
    meter.begin().settle({ input_tokens: 10, output_tokens: 2 }, 'openai:gpt-4o');
    expect(meter.usage).toEqual({
      input_tokens: 10,
      output_tokens: 2,
      total_tokens: 12,
      model_calls: 1,
      aborted_model_calls: 0,
    });
    meter.begin().settle({ input_tokens: 20, output_tokens: 4 }, 'anthropic:claude');
    meter.begin().abort();
    meter.begin().settle({ input_tokens: 5, output_tokens: 1 });
    expect(meter.usage).toEqual({
      input_tokens: 35,
      output_tokens: 7,
      total_tokens: 42,
      model_calls: 3,
      aborted_model_calls: 1,
      by_model: {
        'openai:gpt-4o': { input_tokens: 15, output_tokens: 3, model_calls: 2 },
        'anthropic:claude': { input_tokens: 20, output_tokens: 4, model_calls: 1 },
      },
    });
  });

  it('a resumed attempt goes on from the stored usage, its per-model part included, without changing it', () => {
    const stored: TokenUsage = {
      input_tokens: 1,
      output_tokens: 1,
      total_tokens: 2,
      model_calls: 1,
      aborted_model_calls: 0,
      by_model: { 'anthropic:claude': { input_tokens: 1, output_tokens: 1, model_calls: 1 } },
    };
    const meter = createRunUsageMeter(stored, 'openai:gpt-4o');
    meter.resumeFrom([], 'run-1');
    meter.begin().settle({ input_tokens: 3, output_tokens: 3 }, 'openai:gpt-4o');
    expect(meter.usage.by_model).toEqual({
      'anthropic:claude': { input_tokens: 1, output_tokens: 1, model_calls: 1 },
      'openai:gpt-4o': { input_tokens: 3, output_tokens: 3, model_calls: 1 },
    });
    expect(stored.by_model?.['anthropic:claude']?.model_calls).toBe(1);
  });
});
