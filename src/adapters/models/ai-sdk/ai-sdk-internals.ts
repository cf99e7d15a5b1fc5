import type { LanguageModelV3, LanguageModelV3Prompt, LanguageModelV3Usage } from '@ai-sdk/provider';
import type { ModelMessage } from 'ai';
import type { ModelCallUsage } from '../../../core/runs/run-usage.js';
// The only import of `ai/internal` (the import-graph test holds it here): the SDK says it "can change in patch
// versions", so `ai` is pinned to an exact version and ai-sdk-internals.test.ts pins down what these return.
import { asLanguageModelUsage, convertToLanguageModelPrompt } from 'ai/internal';

/**
 * The prompt a LanguageModelV3 takes, converted as `streamText` converts it (docs/agent-loop.md#one-model-call).
 * `streamText` would first re-validate the whole thread with zod on every call (O(thread) per step); the
 * thread is written only by Troupe, in its own shape, so it is passed as is.
 */
export async function toLanguageModelPrompt(
  model: LanguageModelV3,
  system: string,
  messages: ModelMessage[],
  abortSignal: AbortSignal,
): Promise<LanguageModelV3Prompt> {
  return convertToLanguageModelPrompt({
    prompt: { system: system || undefined, messages },
    supportedUrls: await model.supportedUrls,
    download: undefined,
    abortSignal,
  });
}

/**
 * A call's input and output tokens, as `streamText` counts them from the provider's usage: input counts cached
 * tokens too (both providers' adapters add them in), with the cache reads and writes and the reasoning share of
 * the output as details (docs/usage.md#cached-and-reasoning-tokens).
 */
export function toTokenUsage(usage: LanguageModelV3Usage): ModelCallUsage {
  const counted = asLanguageModelUsage(usage);
  const details: Partial<ModelCallUsage> = {};
  const read = counted.inputTokenDetails.cacheReadTokens;
  const write = counted.inputTokenDetails.cacheWriteTokens;
  const reasoning = counted.outputTokenDetails.reasoningTokens;
  if (read) details.cache_read_tokens = read;
  if (write) details.cache_write_tokens = write;
  if (reasoning) details.reasoning_tokens = reasoning;
  return { input_tokens: counted.inputTokens ?? 0, output_tokens: counted.outputTokens ?? 0, ...details };
}
