import { describe, expect, it } from 'vitest';
import { budgetTokensOf, cacheTokenWeights, runBudgetTokensOf } from './cache-token-weights.js';
import { parsePriceTable } from './price-table.js';

describe('cache token weights', () => {
  it("take the providers' published ratios without prices", () => {
    expect(cacheTokenWeights(undefined, 'anthropic:claude-sonnet-4-5')).toEqual({ read: 0.1, write: 1.25 });
    expect(cacheTokenWeights(undefined, 'openai:gpt-4o-2024-11-20')).toEqual({ read: 0.5, write: 1 });
    expect(cacheTokenWeights(undefined, 'openai:gpt-4.1-mini')).toEqual({ read: 0.25, write: 1 });
    expect(cacheTokenWeights(undefined, 'openai:gpt-5')).toEqual({ read: 0.1, write: 1 });
    expect(cacheTokenWeights(undefined, 'openai:some-future-model')).toEqual({ read: 0.5, write: 1 });
    expect(cacheTokenWeights(undefined, 'openai-compatible:vllm:qwen3')).toEqual({ read: 1, write: 1 });
  });

  it('take the configured prices where they name cache prices', () => {
    const prices = parsePriceTable({
      'openai-compatible:deepseek:deepseek-chat': {
        input_per_mtok: 0.28,
        output_per_mtok: 0.42,
        cache_read_per_mtok: 0.028,
      },
      'claude-test': { input_per_mtok: 3, output_per_mtok: 15, cache_write_per_mtok: 6 },
    });
    expect(cacheTokenWeights(prices, 'openai-compatible:deepseek:deepseek-chat').read).toBeCloseTo(0.1);
    expect(cacheTokenWeights(prices, 'anthropic:claude-test')).toEqual({ read: 0.1, write: 2 });
  });

  it('count budget tokens: uncached input and output one each, cached at their weight, rounded up', () => {
    const weights = { read: 0.1, write: 1.25 };
    const usage = { input_tokens: 1000, output_tokens: 50, cache_read_tokens: 800, cache_write_tokens: 100 };
    // 100 uncached + 50 output + 80 read + 125 written.
    expect(budgetTokensOf(weights, usage)).toBe(355);
    expect(budgetTokensOf(weights, { input_tokens: 10, output_tokens: 0, cache_read_tokens: 10 })).toBe(1);
    expect(budgetTokensOf(weights, { input_tokens: 10, output_tokens: 0, cache_read_tokens: 11 })).toBe(2);
    expect(budgetTokensOf(weights, { input_tokens: 7, output_tokens: 3 })).toBe(10);
  });

  it('weigh each model that answered at its own weights once a fallback answered', () => {
    const usage = {
      input_tokens: 2000,
      output_tokens: 0,
      cache_read_tokens: 2000,
      by_model: {
        'anthropic:claude-test': { input_tokens: 1000, output_tokens: 0, cache_read_tokens: 1000 },
        'openai:gpt-4o': { input_tokens: 1000, output_tokens: 0, cache_read_tokens: 1000 },
      },
    };
    const weightsOf = (spec: string) => cacheTokenWeights(undefined, spec);
    expect(runBudgetTokensOf(weightsOf, 'anthropic:claude-test', usage)).toBe(100 + 500);
  });
});
