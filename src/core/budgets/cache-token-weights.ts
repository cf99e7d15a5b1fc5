import { modelPrefixTable } from '../model-calls/model-prefix-table.js';
import type { ModelCallUsage } from '../runs/run-usage.js';
import type { ModelPrice, PriceTable } from './model-price.js';

/**
 * What one cached input token weighs against an uncached one (docs/budgets.md#cached-tokens): a cache read
 * and a cache write, as fractions of the input price.
 */
export interface CacheTokenWeights {
  read: number;
  write: number;
}

/** Without a price that says otherwise, a cached token weighs what an uncached one does. */
const FULL: CacheTokenWeights = { read: 1, write: 1 };

/** Anthropic's published multipliers: reads 0.1×, writes (5-minute cache) 1.25× the input price. */
const ANTHROPIC: CacheTokenWeights = { read: 0.1, write: 1.25 };

/**
 * OpenAI writes its cache for free and discounts reads per model family (its published prices); the longest
 * prefix ending at `-`, `:` or `@` wins, as in the window table. Other OpenAI models read at 0.5×.
 */
const OPENAI_READ: Readonly<Record<string, number>> = {
  'gpt-4o': 0.5,
  'gpt-4o-mini': 0.5,
  o1: 0.5,
  'o1-mini': 0.5,
  'o3-mini': 0.5,
  'gpt-4.1': 0.25,
  'gpt-4.1-mini': 0.25,
  'gpt-4.1-nano': 0.25,
  o3: 0.25,
  'o4-mini': 0.25,
  'gpt-5': 0.1,
  'gpt-5-mini': 0.1,
  'gpt-5-nano': 0.1,
};
const OPENAI_DEFAULT_READ = 0.5;
const openAiReadOf = modelPrefixTable(OPENAI_READ);

function openAiRead(model: string): number {
  return openAiReadOf(model) ?? OPENAI_DEFAULT_READ;
}

/** The provider's published weights for a model spec; other providers (openai-compatible, scripted) weigh 1. */
export function defaultCacheTokenWeights(modelSpec: string): CacheTokenWeights {
  const colon = modelSpec.indexOf(':');
  const provider = colon < 0 ? modelSpec : modelSpec.slice(0, colon);
  if (provider === 'anthropic') return ANTHROPIC;
  if (provider === 'openai') return { read: openAiRead(modelSpec.slice(colon + 1)), write: 1 };
  return FULL;
}

/** A model's price in the table, by spec or by model name alone. */
export function priceOf(prices: PriceTable | undefined, modelSpec: string): ModelPrice | undefined {
  if (!prices) return undefined;
  return prices[modelSpec] ?? prices[modelSpec.slice(modelSpec.indexOf(':') + 1)];
}

/**
 * A model's weights: from its configured prices (`cache_read_per_mtok` / `cache_write_per_mtok` over
 * `input_per_mtok`) where they name them, else the provider's published weights.
 */
export function cacheTokenWeights(prices: PriceTable | undefined, modelSpec: string): CacheTokenWeights {
  const fallback = defaultCacheTokenWeights(modelSpec);
  const price = priceOf(prices, modelSpec);
  if (!price || price.input_per_mtok <= 0) return fallback;
  return {
    read:
      price.cache_read_per_mtok === undefined
        ? fallback.read
        : price.cache_read_per_mtok / price.input_per_mtok,
    write:
      price.cache_write_per_mtok === undefined
        ? fallback.write
        : price.cache_write_per_mtok / price.input_per_mtok,
  };
}

type CountedUsage = Pick<
  ModelCallUsage,
  'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens'
>;

/**
 * Tokens as budgets count them (docs/budgets.md#cached-tokens): output and uncached input one each, cache
 * reads and writes at their weight, rounded up so that a call is never counted as less than it was.
 */
export function budgetTokensOf(weights: CacheTokenWeights, usage: CountedUsage): number {
  const read = usage.cache_read_tokens ?? 0;
  const write = usage.cache_write_tokens ?? 0;
  const uncached = Math.max(0, usage.input_tokens - read - write);
  // Rounded to micro-tokens first: 0.1 × 10 must count 1, not 1.0000000000000002 → 2.
  const weighted = Math.round((read * weights.read + write * weights.write) * 1e6) / 1e6;
  return uncached + usage.output_tokens + Math.ceil(weighted);
}

/** A run's budget tokens: each model that answered at its own weights (`by_model`), else at its own model's. */
export function runBudgetTokensOf(
  weightsOf: (modelSpec: string) => CacheTokenWeights,
  modelSpec: string,
  usage: CountedUsage & { by_model?: Record<string, CountedUsage> },
): number {
  if (!usage.by_model) return budgetTokensOf(weightsOf(modelSpec), usage);
  let total = 0;
  for (const [spec, used] of Object.entries(usage.by_model)) total += budgetTokensOf(weightsOf(spec), used);
  return total;
}
