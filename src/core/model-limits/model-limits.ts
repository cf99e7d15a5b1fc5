/**
 * Provider admission limits (`TROUPE_MODEL_LIMITS`, README "Real providers"): per provider, and optionally
 * per model of it, how many calls may be in flight at once and how many requests and tokens a minute may
 * see. Shared by every run of the process, and of every process in scale-out.
 */
export interface ModelLimit {
  concurrency?: number;
  requests_per_minute?: number;
  tokens_per_minute?: number;
}

export interface ProviderLimits extends ModelLimit {
  /** By model id (the part of a spec after the provider, e.g. `gpt-4o-mini`). */
  models?: Record<string, ModelLimit>;
}

/**
 * By provider key: `openai`, `anthropic`, `openai-compatible:NAME`, `scripted` (see `ResolvedModel.limitKey`).
 */
export type ModelLimits = Readonly<Record<string, ProviderLimits>>;

const LIMIT_FIELDS = ['concurrency', 'requests_per_minute', 'tokens_per_minute'] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseLimit(value: unknown, where: string, allowModels: boolean): ProviderLimits {
  if (!isRecord(value)) throw new Error(`${where} must be an object`);
  const limit: ProviderLimits = {};
  for (const [key, raw] of Object.entries(value)) {
    if ((LIMIT_FIELDS as readonly string[]).includes(key)) {
      if (typeof raw !== 'number' || !Number.isInteger(raw) || raw <= 0) {
        throw new Error(`${where}.${key} must be a positive integer, got ${JSON.stringify(raw)}`);
      }
      limit[key as (typeof LIMIT_FIELDS)[number]] = raw;
    } else if (key === 'models' && allowModels) {
      if (!isRecord(raw)) throw new Error(`${where}.models must be an object of model id → limits`);
      limit.models = Object.fromEntries(
        Object.entries(raw).map(([model, entry]) => [
          model,
          parseLimit(entry, `${where}.models.${model}`, false),
        ]),
      );
    } else {
      const known = [...LIMIT_FIELDS, ...(allowModels ? ['models'] : [])].join(', ');
      throw new Error(`${where}: unknown field "${key}" (known: ${known})`);
    }
  }
  return limit;
}

/** The limits file's content (parsed JSON or YAML): `{providers: {KEY: {…limits, models?: {ID: {…}}}}}`. */
export function parseModelLimits(document: unknown): ModelLimits {
  if (!isRecord(document) || !isRecord(document.providers)) {
    throw new Error('must be an object with a "providers" object (provider → limits)');
  }
  const extra = Object.keys(document).filter((key) => key !== 'providers');
  if (extra.length > 0) throw new Error(`unknown top-level field "${extra[0] ?? ''}" (known: providers)`);
  return Object.fromEntries(
    Object.entries(document.providers).map(([provider, entry]) => [
      provider,
      parseLimit(entry, `providers.${provider}`, true),
    ]),
  );
}

/** The limits a call of `model` at `provider` is held to: the provider's own, then its model's, if any. */
export function limitsFor(
  limits: ModelLimits,
  provider: string,
  model: string,
): { key: string; limit: ModelLimit }[] {
  const entry = limits[provider];
  if (!entry) return [];
  const found: { key: string; limit: ModelLimit }[] = [];
  const { models, ...own } = entry;
  if (LIMIT_FIELDS.some((field) => own[field] !== undefined)) found.push({ key: provider, limit: own });
  const perModel = models?.[model];
  if (perModel && LIMIT_FIELDS.some((field) => perModel[field] !== undefined)) {
    found.push({ key: `${provider}\u0000${model}`, limit: perModel });
  }
  return found;
}
