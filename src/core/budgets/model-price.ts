/**
 * USD per million tokens of one model (`TROUPE_MODEL_PRICES`). Cache reads and writes are input tokens at their
 * own price when the entry names one; without it, at the provider's published fraction of the input price
 * (Anthropic: reads 0.1×, writes 1.25×; OpenAI: reads 0.5× or less, `cache-token-weights.ts`), the input price
 * for other providers (docs/budgets.md#cached-tokens). Reasoning tokens are output tokens and cost the output
 * price.
 */
export interface ModelPrice {
  input_per_mtok: number;
  output_per_mtok: number;
  cache_read_per_mtok?: number;
  cache_write_per_mtok?: number;
}

/** Keyed by model spec (`openai:gpt-4o-mini`) or by the model name alone (`gpt-4o-mini`). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;
