import type { LanguageModelV3Usage } from '@ai-sdk/provider';

const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;

const field = (record: unknown, key: string): unknown =>
  typeof record === 'object' && record !== null ? (record as Record<string, unknown>)[key] : undefined;

/**
 * An `openai-compatible` endpoint's usage as the SDK's (docs/model-calls.md#prompt-caching). Cache reads come
 * as OpenAI reports them, `prompt_tokens_details.cached_tokens` (vLLM, Qwen, most gateways), or as DeepSeek
 * does, `prompt_cache_hit_tokens` beside `prompt_cache_miss_tokens`; `prompt_tokens` counts both either way.
 * The SDK's own conversion reads only the first.
 */
export function openAiCompatibleUsage(usage: unknown): LanguageModelV3Usage {
  if (usage === null || usage === undefined) {
    return {
      inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
      outputTokens: { total: undefined, text: undefined, reasoning: undefined },
      raw: undefined,
    };
  }
  const hit = count(field(usage, 'prompt_cache_hit_tokens'));
  const miss = count(field(usage, 'prompt_cache_miss_tokens'));
  const prompt = count(field(usage, 'prompt_tokens')) ?? (hit ?? 0) + (miss ?? 0);
  const completion = count(field(usage, 'completion_tokens')) ?? 0;
  const read = Math.min(
    prompt,
    count(field(field(usage, 'prompt_tokens_details'), 'cached_tokens')) ?? hit ?? 0,
  );
  const reasoning = count(field(field(usage, 'completion_tokens_details'), 'reasoning_tokens')) ?? 0;
  return {
    inputTokens: { total: prompt, noCache: prompt - read, cacheRead: read, cacheWrite: undefined },
    outputTokens: { total: completion, text: Math.max(0, completion - reasoning), reasoning },
    raw: usage as LanguageModelV3Usage['raw'],
  };
}
