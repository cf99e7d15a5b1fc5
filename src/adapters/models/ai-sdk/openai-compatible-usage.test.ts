import { describe, expect, it } from 'vitest';
import { openAiCompatibleUsage } from './openai-compatible-usage.js';

describe('openai-compatible usage', () => {
  it('reads cached tokens as OpenAI and vLLM report them', () => {
    const usage = openAiCompatibleUsage({
      prompt_tokens: 1000,
      completion_tokens: 40,
      prompt_tokens_details: { cached_tokens: 768 },
      completion_tokens_details: { reasoning_tokens: 10 },
    });
    expect(usage.inputTokens).toEqual({ total: 1000, noCache: 232, cacheRead: 768, cacheWrite: undefined });
    expect(usage.outputTokens).toEqual({ total: 40, text: 30, reasoning: 10 });
  });

  it("reads DeepSeek's hits and misses", () => {
    const usage = openAiCompatibleUsage({
      prompt_tokens: 1000,
      completion_tokens: 5,
      prompt_cache_hit_tokens: 896,
      prompt_cache_miss_tokens: 104,
    });
    expect(usage.inputTokens).toEqual({ total: 1000, noCache: 104, cacheRead: 896, cacheWrite: undefined });
    // Without prompt_tokens, hits and misses make the prompt.
    expect(
      openAiCompatibleUsage({ prompt_cache_hit_tokens: 6, prompt_cache_miss_tokens: 4 }).inputTokens.total,
    ).toBe(10);
  });

  it('reports nothing cached when the endpoint says nothing, and no usage as unknown', () => {
    expect(openAiCompatibleUsage({ prompt_tokens: 9, completion_tokens: 1 }).inputTokens.cacheRead).toBe(0);
    expect(openAiCompatibleUsage(undefined).inputTokens.total).toBeUndefined();
  });
});
