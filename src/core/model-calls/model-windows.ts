import { z } from 'zod';
import { modelPrefixTable } from './model-prefix-table.js';

/**
 * How much a model reads and writes (docs/model-calls.md#context-windows): its context window (prompt and
 * answer together) and the most it answers in one call, in tokens.
 */
export interface ModelWindow {
  contextWindow: number;
  maxOutputTokens: number;
}

/** Where a window came from, for the `context_compacted` event and the docs' precedence. */
export type ModelWindowSource = 'agent' | 'endpoint' | 'table' | 'default';

/** A window declared by an agent's config, an `openai-compatible` endpoint or a scripted scenario. */
export interface DeclaredWindow {
  context_window?: number | undefined;
  max_output_tokens?: number | undefined;
}

const contextWindowField = z.number().int().min(256).max(100_000_000);
const maxOutputTokensField = z.number().int().min(16).max(10_000_000);

/** `context_window` / `max_output_tokens` as an agent's config declares them. */
export const declaredWindowFields = {
  context_window: contextWindowField
    .optional()
    .describe("The model's context window in tokens (prompt and answer); overrides the built-in table"),
  max_output_tokens: maxOutputTokensField
    .optional()
    .describe('The most tokens the model answers in one call; also sent to the provider as its limit'),
};

/** The same, read from text (environment variables, where numbers come as strings). */
export const declaredWindowSchema = z.strictObject({
  context_window: z.coerce.number().pipe(contextWindowField).optional(),
  max_output_tokens: z.coerce.number().pipe(maxOutputTokensField).optional(),
});

/** A model nobody declared and the table does not know: small enough that most servers hold it. */
export const DEFAULT_MODEL_WINDOW: ModelWindow = { contextWindow: 32_768, maxOutputTokens: 4_096 };

/**
 * Common OpenAI and Anthropic models by id prefix; a dated or suffixed id (`gpt-4o-2024-11-20`,
 * `claude-3-5-sonnet-latest`) takes the longest prefix that ends at a `-`, `:` or `@`. Figures are the
 * providers' published limits.
 */
const TABLE: Readonly<Record<string, ModelWindow>> = {
  // OpenAI
  'gpt-3.5-turbo': { contextWindow: 16_385, maxOutputTokens: 4_096 },
  'gpt-4': { contextWindow: 8_192, maxOutputTokens: 8_192 },
  'gpt-4-32k': { contextWindow: 32_768, maxOutputTokens: 8_192 },
  'gpt-4-turbo': { contextWindow: 128_000, maxOutputTokens: 4_096 },
  'gpt-4o': { contextWindow: 128_000, maxOutputTokens: 16_384 },
  'gpt-4o-2024-05-13': { contextWindow: 128_000, maxOutputTokens: 4_096 },
  'gpt-4o-mini': { contextWindow: 128_000, maxOutputTokens: 16_384 },
  'chatgpt-4o-latest': { contextWindow: 128_000, maxOutputTokens: 16_384 },
  'gpt-4.1': { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-4.1-mini': { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-4.1-nano': { contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-5': { contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5-mini': { contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5-nano': { contextWindow: 400_000, maxOutputTokens: 128_000 },
  'gpt-5-chat-latest': { contextWindow: 128_000, maxOutputTokens: 16_384 },
  o1: { contextWindow: 200_000, maxOutputTokens: 100_000 },
  'o1-mini': { contextWindow: 128_000, maxOutputTokens: 65_536 },
  'o1-preview': { contextWindow: 128_000, maxOutputTokens: 32_768 },
  o3: { contextWindow: 200_000, maxOutputTokens: 100_000 },
  'o3-mini': { contextWindow: 200_000, maxOutputTokens: 100_000 },
  'o4-mini': { contextWindow: 200_000, maxOutputTokens: 100_000 },
  // Anthropic
  'claude-3-haiku': { contextWindow: 200_000, maxOutputTokens: 4_096 },
  'claude-3-sonnet': { contextWindow: 200_000, maxOutputTokens: 4_096 },
  'claude-3-opus': { contextWindow: 200_000, maxOutputTokens: 4_096 },
  'claude-3-5-haiku': { contextWindow: 200_000, maxOutputTokens: 8_192 },
  'claude-3-5-sonnet': { contextWindow: 200_000, maxOutputTokens: 8_192 },
  'claude-3-7-sonnet': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-sonnet-4': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4': { contextWindow: 200_000, maxOutputTokens: 32_000 },
  'claude-opus-4-1': { contextWindow: 200_000, maxOutputTokens: 32_000 },
  'claude-sonnet-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-haiku-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4-5': { contextWindow: 200_000, maxOutputTokens: 64_000 },
};

/**
 * The table's window for a model id, or undefined. A router's `vendor/model` id (OpenRouter, LiteLLM) is
 * looked up by its last segment; case is ignored.
 */
export const knownModelWindow: (modelId: string) => ModelWindow | undefined = modelPrefixTable(TABLE);

/**
 * The window a run uses for a model: the agent's `config.context_window` / `config.max_output_tokens`
 * first, then what the model's endpoint (or scenario) declares, then the table, then the default. The two
 * figures are resolved separately, and the answer never takes more than half the window.
 */
export function resolveModelWindow(
  modelId: string,
  agent: DeclaredWindow | undefined,
  endpoint: DeclaredWindow | undefined,
): ModelWindow & { source: ModelWindowSource } {
  const known = knownModelWindow(modelId);
  const source: ModelWindowSource =
    agent?.context_window !== undefined
      ? 'agent'
      : endpoint?.context_window !== undefined
        ? 'endpoint'
        : known
          ? 'table'
          : 'default';
  const contextWindow =
    agent?.context_window ??
    endpoint?.context_window ??
    known?.contextWindow ??
    DEFAULT_MODEL_WINDOW.contextWindow;
  const maxOutputTokens =
    agent?.max_output_tokens ??
    endpoint?.max_output_tokens ??
    known?.maxOutputTokens ??
    DEFAULT_MODEL_WINDOW.maxOutputTokens;
  return { contextWindow, maxOutputTokens: Math.min(maxOutputTokens, Math.floor(contextWindow / 2)), source };
}

/**
 * The prompt size above which a call is compacted first: `compactAt` of what the window leaves once the
 * answer's room is set aside.
 */
export function compactionThreshold(window: ModelWindow, compactAt: number): number {
  return Math.max(1, Math.floor((window.contextWindow - window.maxOutputTokens) * compactAt));
}

/**
 * What a provider's context-overflow message states: its window (OpenAI "maximum context length is N
 * tokens", Anthropic "prompt is too long: X tokens > N maximum") and, when it says, the prompt's size in its
 * own count ("resulted in X tokens"), so the retry after an overflow aims below it in Troupe's count too.
 */
export function overflowInMessage(message: string): { window: number; prompt?: number } | undefined {
  const number = (value: string | undefined) => {
    const parsed = value === undefined ? Number.NaN : Number(value);
    return Number.isSafeInteger(parsed) && parsed > 0 ? parsed : undefined;
  };
  const openai = /maximum context length is (\d+)/i.exec(message);
  const anthropic = /(\d+) tokens? > (\d+) maximum/i.exec(message);
  const window = number(openai?.[1] ?? anthropic?.[2]);
  if (window === undefined) return undefined;
  const prompt = number(anthropic?.[1] ?? /resulted in (\d+) tokens/i.exec(message)?.[1]);
  return prompt === undefined ? { window } : { window, prompt };
}
