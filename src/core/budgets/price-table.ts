import type { ModelCallUsage } from '../runs/run-usage.js';
import { cacheTokenWeights, priceOf } from './cache-token-weights.js';
import type { ModelPrice, PriceTable } from './model-price.js';

export type { ModelPrice, PriceTable } from './model-price.js';

/** What a cost is computed from: a call's or a run's tokens (cache details optional). */
type PricedUsage = Pick<
  ModelCallUsage,
  'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens'
>;

/**
 * The cost of a run's tokens: per model when its usage says which models ran (a fallback answered some
 * calls), else at its own model's price; undefined when the table lacks a price it needs.
 */
export function runCostOf(
  prices: PriceTable | undefined,
  modelSpec: string,
  usage: PricedUsage & { by_model?: Record<string, PricedUsage> },
): number | undefined {
  if (!usage.by_model) return costOf(prices, modelSpec, usage);
  let total = 0;
  for (const [spec, used] of Object.entries(usage.by_model)) {
    const cost = costOf(prices, spec, used);
    if (cost === undefined) return undefined;
    total += cost;
  }
  return total;
}

/** The cost of tokens of one model, or undefined when the table has no price for it. */
export function costOf(
  prices: PriceTable | undefined,
  modelSpec: string,
  usage: PricedUsage,
): number | undefined {
  const price = priceOf(prices, modelSpec);
  if (!price) return undefined;
  const weights = cacheTokenWeights(prices, modelSpec);
  const read = usage.cache_read_tokens ?? 0;
  const write = usage.cache_write_tokens ?? 0;
  const uncached = Math.max(0, usage.input_tokens - read - write);
  return (
    ((uncached + read * weights.read + write * weights.write) * price.input_per_mtok +
      usage.output_tokens * price.output_per_mtok) /
    1_000_000
  );
}

const valid = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;

/** Parses the price file's JSON; a malformed entry is an error naming it, never a silent zero cost. */
export function parsePriceTable(json: unknown): PriceTable {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new Error(
      'must be a JSON object of model → {input_per_mtok, output_per_mtok, cache_read_per_mtok?, cache_write_per_mtok?}',
    );
  }
  const table: Record<string, ModelPrice> = {};
  for (const [model, entry] of Object.entries(json)) {
    const price = entry as Partial<ModelPrice> | null;
    if (!price || !valid(price.input_per_mtok) || !valid(price.output_per_mtok)) {
      throw new Error(`entry "${model}" needs non-negative numbers input_per_mtok and output_per_mtok`);
    }
    const parsed: ModelPrice = {
      input_per_mtok: price.input_per_mtok as number,
      output_per_mtok: price.output_per_mtok as number,
    };
    for (const key of ['cache_read_per_mtok', 'cache_write_per_mtok'] as const) {
      if (price[key] === undefined) continue;
      if (!valid(price[key])) throw new Error(`entry "${model}": ${key} must be a non-negative number`);
      parsed[key] = price[key];
    }
    table[model] = parsed;
  }
  return table;
}
