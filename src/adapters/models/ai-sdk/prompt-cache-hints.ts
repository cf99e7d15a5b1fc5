import type {
  LanguageModelV3FunctionTool,
  LanguageModelV3Prompt,
  SharedV3ProviderOptions,
} from '@ai-sdk/provider';

/**
 * How a provider is told what of a prompt to cache (docs/model-calls.md#prompt-caching): Anthropic's
 * breakpoints, OpenAI's `prompt_cache_key`, or the same key in the body of an `openai-compatible` endpoint
 * that opted in (named by the SDK's provider options key, the endpoint's name).
 */
export type PromptCaching = 'anthropic' | 'openai' | 'none' | { promptCacheKeyOf: string };

const EPHEMERAL: SharedV3ProviderOptions = { anthropic: { cacheControl: { type: 'ephemeral' } } };

/** Anthropic accepts at most this many `cache_control` breakpoints in one request. */
export const ANTHROPIC_MAX_BREAKPOINTS = 4;

/**
 * Anthropic caches a prompt's prefix up to each `cache_control` breakpoint it is sent (order: tools, system,
 * messages), and a later request reads the longest cached prefix it repeats byte for byte. Four breakpoints, the
 * provider's limit: the last tool (the tool list), the system prompt, the last message (this step's whole
 * prompt, read back by the next step) and the last user-side message before the latest model turn (read
 * back even when this step added more content blocks than the provider looks back over).
 */
export function withAnthropicBreakpoints(
  prompt: LanguageModelV3Prompt,
  tools: readonly LanguageModelV3FunctionTool[],
): { prompt: LanguageModelV3Prompt; tools: LanguageModelV3FunctionTool[] } {
  const marked = new Set<number>();
  const system = prompt.findIndex((message) => message.role === 'system');
  if (system >= 0) marked.add(system);
  const last = prompt.length - 1;
  if (last >= 0 && prompt[last]?.role !== 'system') marked.add(last);
  const lastAssistant = prompt.findLastIndex((message) => message.role === 'assistant');
  for (let index = lastAssistant - 1; index > system; index--) {
    const role = prompt[index]?.role;
    if (role === 'user' || role === 'tool') {
      marked.add(index);
      break;
    }
  }
  const withHints = prompt.map((message, index) =>
    marked.has(index) ? { ...message, providerOptions: mergeOptions(message.providerOptions) } : message,
  );
  const lastTool = tools.length - 1;
  return {
    prompt: withHints,
    tools: tools.map((tool, index) =>
      index === lastTool ? { ...tool, providerOptions: mergeOptions(tool.providerOptions) } : tool,
    ),
  };
}

function mergeOptions(options: SharedV3ProviderOptions | undefined): SharedV3ProviderOptions {
  return { ...options, anthropic: { ...options?.anthropic, ...EPHEMERAL.anthropic } };
}

/** OpenAI routes requests with one `prompt_cache_key` to the same cache: one key per thread. */
export function openAiCacheOptions(key: string): SharedV3ProviderOptions {
  return { openai: { promptCacheKey: key } };
}

/**
 * The provider options a call sends for its cache key, if any. The `openai-compatible` SDK puts keys of its
 * endpoint's options it does not know into the body as they are: `prompt_cache_key` reaches the server.
 */
export function cacheKeyOptions(
  caching: PromptCaching,
  key: string | undefined,
): SharedV3ProviderOptions | undefined {
  if (key === undefined) return undefined;
  if (caching === 'openai') return openAiCacheOptions(key);
  if (typeof caching === 'object') return { [caching.promptCacheKeyOf]: { prompt_cache_key: key } };
  return undefined;
}
