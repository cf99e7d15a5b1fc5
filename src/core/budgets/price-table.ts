/** USD per million tokens of one model (`TROUPE_MODEL_PRICES`). */
export interface ModelPrice {
  input_per_mtok: number;
  output_per_mtok: number;
}

/** Keyed by model spec (`openai:gpt-4o-mini`) or by the model name alone (`gpt-4o-mini`). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * The cost of a run's tokens: per model when its usage says which models ran (a fallback answered some
 * calls), else at its own model's price; undefined when the table lacks a price it needs.
 */
export function runCostOf(
  prices: PriceTable | undefined,
  modelSpec: string,
  usage: {
    input_tokens: number;
    output_tokens: number;
    by_model?: Record<string, { input_tokens: number; output_tokens: number }>;
  },
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
  usage: { input_tokens: number; output_tokens: number },
): number | undefined {
  if (!prices) return undefined;
  const price = prices[modelSpec] ?? prices[modelSpec.slice(modelSpec.indexOf(':') + 1)];
  if (!price) return undefined;
  return (
    (usage.input_tokens * price.input_per_mtok + usage.output_tokens * price.output_per_mtok) / 1_000_000
  );
}

/** Parses the price file's JSON; a malformed entry is an error naming it, never a silent zero cost. */
export function parsePriceTable(json: unknown): PriceTable {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new Error('must be a JSON object of model → {input_per_mtok, output_per_mtok}');
  }
  const table: Record<string, ModelPrice> = {};
  for (const [model, entry] of Object.entries(json)) {
    const price = entry as Partial<ModelPrice> | null;
    const valid = (value: unknown) => typeof value === 'number' && Number.isFinite(value) && value >= 0;
    if (!price || !valid(price.input_per_mtok) || !valid(price.output_per_mtok)) {
      throw new Error(`entry "${model}" needs non-negative numbers input_per_mtok and output_per_mtok`);
    }
    table[model] = {
      input_per_mtok: price.input_per_mtok as number,
      output_per_mtok: price.output_per_mtok as number,
    };
  }
  return table;
}
