import { describe, expect, it } from 'vitest';
import { costOf, parsePriceTable, runCostOf } from './price-table.js';

const prices = parsePriceTable({
  'openai:gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10 },
  'claude-test': { input_per_mtok: 3, output_per_mtok: 15 },
});

describe('run costs', () => {
  it("price a run's tokens at its model, by spec or by model name", () => {
    expect(costOf(prices, 'openai:gpt-4o', { input_tokens: 1_000_000, output_tokens: 0 })).toBe(2.5);
    expect(costOf(prices, 'anthropic:claude-test', { input_tokens: 0, output_tokens: 1_000_000 })).toBe(15);
    expect(costOf(prices, 'openai:unknown', { input_tokens: 1, output_tokens: 1 })).toBeUndefined();
  });

  it('price each model that ran at its own price once a fallback answered', () => {
    const usage = {
      input_tokens: 2_000_000,
      output_tokens: 0,
      by_model: {
        'openai:gpt-4o': { input_tokens: 1_000_000, output_tokens: 0 },
        'anthropic:claude-test': { input_tokens: 1_000_000, output_tokens: 0 },
      },
    };
    expect(runCostOf(prices, 'openai:gpt-4o', usage)).toBe(5.5);
    expect(
      runCostOf(prices, 'openai:gpt-4o', {
        ...usage,
        by_model: { 'other:x': { input_tokens: 1, output_tokens: 0 } },
      }),
    ).toBeUndefined();
  });

  it("price cache reads and writes at their own prices, the provider's fraction of the input price without them", () => {
    const table = parsePriceTable({
      'anthropic:claude-test': {
        input_per_mtok: 3,
        output_per_mtok: 15,
        cache_read_per_mtok: 0.3,
        cache_write_per_mtok: 3.75,
      },
      'openai:gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10 },
    });
    const usage = {
      input_tokens: 3_000_000,
      output_tokens: 1_000_000,
      cache_read_tokens: 1_000_000,
      cache_write_tokens: 1_000_000,
    };
    // 1 M uncached at 3, 1 M read at 0.3, 1 M written at 3.75, 1 M out at 15.
    expect(costOf(table, 'anthropic:claude-test', usage)).toBeCloseTo(22.05);
    // OpenAI without cache prices: reads at half the input price (gpt-4o), writes at the input price.
    expect(costOf(table, 'openai:gpt-4o', usage)).toBeCloseTo(16.25);
    expect(() =>
      parsePriceTable({ x: { input_per_mtok: 1, output_per_mtok: 1, cache_read_per_mtok: -1 } }),
    ).toThrow('cache_read_per_mtok');
  });
});
