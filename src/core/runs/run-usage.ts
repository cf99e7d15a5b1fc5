import type { ModelUsage, TokenUsage } from '../records/run.js';

/*
 * How a run's usage adds up (docs/usage.md): over every attempt of the run, one model call at a time.
 * A settled call (the provider answered) adds its tokens and one `model_calls`; a call that never answered
 * (cancelled, failed, lost with its worker) adds one `aborted_model_calls` and no tokens, since none were
 * reported. Each settled call's tokens are stored with the model's turn it produced, in the same write, so
 * the turns of a run are the durable record of what its attempts settled; the `usage` stored on the run is
 * their sum as of its last park, hand-back or end, plus the aborted calls.
 */

/**
 * What one model call reported. `input_tokens` counts every prompt token, cached or not; the optional details
 * say how many of them were read from the provider's prompt cache or written to it, and how many of the
 * output tokens were reasoning (docs/usage.md#cached-and-reasoning-tokens). Absent means none reported.
 */
export interface ModelCallUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  reasoning_tokens?: number;
}

/** The token details a call may report beside its input and output, in the order they are shown. */
export const USAGE_DETAILS = ['cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens'] as const;
export type UsageDetail = (typeof USAGE_DETAILS)[number];

/** `left` with `right`'s details added; a detail neither reports stays absent (old rows stay as they were). */
export function addUsageDetails<T extends Partial<Record<UsageDetail, number>>>(
  left: T,
  right: Partial<Record<UsageDetail, number>>,
): T {
  const sum = { ...left };
  for (const key of USAGE_DETAILS) {
    const value = right[key];
    if (value !== undefined && value > 0) sum[key] = (left[key] ?? 0) + value;
  }
  return sum;
}

/** The details of a stored usage object that are finite non-negative numbers. */
function usageDetailsOf(record: Record<string, unknown>): Partial<Record<UsageDetail, number>> {
  const details: Partial<Record<UsageDetail, number>> = {};
  for (const key of USAGE_DETAILS) {
    const value = record[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) details[key] = value;
  }
  return details;
}

export function emptyUsage(): TokenUsage {
  return { input_tokens: 0, output_tokens: 0, total_tokens: 0, model_calls: 0, aborted_model_calls: 0 };
}

/**
 * `usage` with one more settled call. Given which model answered and the run's own model, a call a fallback
 * answered starts `by_model` (the run's own model's share so far included), and every later call adds to it.
 */
export function withSettledCall(
  usage: TokenUsage,
  call: ModelCallUsage,
  models?: { answered: string; run: string },
): TokenUsage {
  const input = usage.input_tokens + call.input_tokens;
  const output = usage.output_tokens + call.output_tokens;
  const next: TokenUsage = addUsageDetails(
    {
      input_tokens: input,
      output_tokens: output,
      total_tokens: input + output,
      model_calls: usage.model_calls + 1,
      aborted_model_calls: usage.aborted_model_calls,
      ...usageDetailsOf(usage),
    },
    call,
  );
  const byModel = byModelAfter(usage, call, models);
  return byModel ? { ...next, by_model: byModel } : next;
}

function byModelAfter(
  usage: TokenUsage,
  call: ModelCallUsage,
  models: { answered: string; run: string } | undefined,
): Record<string, ModelUsage> | undefined {
  if (models === undefined) return usage.by_model;
  let byModel = usage.by_model;
  if (byModel === undefined) {
    if (models.answered === models.run) return undefined;
    const own: ModelUsage = {
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      model_calls: usage.model_calls,
      ...usageDetailsOf(usage),
    };
    byModel = { [models.run]: own };
  }
  const entry = byModel[models.answered] ?? { input_tokens: 0, output_tokens: 0, model_calls: 0 };
  return {
    ...byModel,
    [models.answered]: addUsageDetails(
      {
        ...entry,
        input_tokens: entry.input_tokens + call.input_tokens,
        output_tokens: entry.output_tokens + call.output_tokens,
        model_calls: entry.model_calls + 1,
      },
      call,
    ),
  };
}

/** `usage` with `count` more calls that never answered. */
export function withAbortedCalls(usage: TokenUsage, count = 1): TokenUsage {
  return { ...usage, aborted_model_calls: usage.aborted_model_calls + count };
}

/** The settled calls of a run's stored turns, summed. */
export function settledUsage(calls: Iterable<ModelCallUsage>): TokenUsage {
  let usage = emptyUsage();
  for (const call of calls) usage = withSettledCall(usage, call);
  return usage;
}

/**
 * A run's usage from what is stored: its settled calls from its turns (`settled`), its aborted calls from the
 * run's own `usage`. Turns stored before they carried their usage count nothing, so a stored figure that
 * settled more calls than the turns show is kept: usage never goes down.
 */
export function mergeStoredUsage(stored: TokenUsage | null, settled: TokenUsage): TokenUsage {
  const aborted = stored?.aborted_model_calls ?? 0;
  if (stored !== null && stored.model_calls > settled.model_calls) return { ...stored };
  // Turns do not record which model answered: the per-model split is what the run last stored.
  const byModel = stored?.by_model;
  return { ...settled, aborted_model_calls: aborted, ...(byModel ? { by_model: byModel } : {}) };
}

/**
 * A stored or reported usage object read leniently: rows written before `aborted_model_calls` existed count
 * none; anything that is not a usage object is null.
 */
export function usageOf(value: unknown): TokenUsage | null {
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  const count = (key: string): number => {
    const entry = record[key];
    return typeof entry === 'number' && Number.isFinite(entry) ? entry : 0;
  };
  const input = count('input_tokens');
  const output = count('output_tokens');
  const usage: TokenUsage = {
    input_tokens: input,
    output_tokens: output,
    total_tokens: typeof record.total_tokens === 'number' ? count('total_tokens') : input + output,
    model_calls: count('model_calls'),
    aborted_model_calls: count('aborted_model_calls'),
    ...usageDetailsOf(record),
  };
  const byModel = byModelOf(record.by_model);
  return byModel ? { ...usage, by_model: byModel } : usage;
}

/** A stored `by_model` (which models answered, once a fallback did), its entries read as `usageOf` reads. */
function byModelOf(value: unknown): Record<string, ModelUsage> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const byModel: Record<string, ModelUsage> = {};
  for (const [spec, entry] of Object.entries(value as Record<string, unknown>)) {
    const read = usageOf(entry);
    if (read)
      byModel[spec] = {
        input_tokens: read.input_tokens,
        output_tokens: read.output_tokens,
        model_calls: read.model_calls,
        ...usageDetailsOf(read),
      };
  }
  return Object.keys(byModel).length > 0 ? byModel : undefined;
}

/** A call's usage as stored with its turn (`{input_tokens, output_tokens, cache_read_tokens?, …}`), or null. */
export function callUsageOf(value: unknown): ModelCallUsage | null {
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  const input = record.input_tokens;
  const output = record.output_tokens;
  if (typeof input !== 'number' || typeof output !== 'number') return null;
  return { input_tokens: input, output_tokens: output, ...usageDetailsOf(record) };
}
