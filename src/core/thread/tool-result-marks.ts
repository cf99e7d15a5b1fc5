import type { ToolCallResult } from '../ports/agent-middleware.js';
import type { Refusal } from '../records/refusal.js';
import { TROUPE_OPTIONS_KEY, type ProviderOptions } from './chat-message.js';

/**
 * What the stored tool-result part of a call keeps besides its output, under `providerOptions.troupe`
 * (providers ignore it): a refused call's refusal (docs/runs.md#events) and an outcome the server could not
 * know (docs/effects-and-forks.md), so a transcript read back from the thread shows them as the live stream did.
 */
export function toolResultMarks(result: Pick<ToolCallResult, 'refusal' | 'outcome'>): {
  providerOptions?: ProviderOptions;
} {
  const marks = {
    ...(result.refusal ? { refusal: result.refusal } : {}),
    ...(result.outcome ? { outcome: result.outcome } : {}),
  };
  return Object.keys(marks).length > 0 ? { providerOptions: { [TROUPE_OPTIONS_KEY]: marks } } : {};
}

/** The refusal stored on a tool-result part, if it has one. */
export function toolResultRefusal(part: { providerOptions?: unknown }): Refusal | undefined {
  const options = part.providerOptions as Record<string, { refusal?: unknown } | undefined> | undefined;
  const refusal = options?.[TROUPE_OPTIONS_KEY]?.refusal as Partial<Refusal> | undefined;
  return typeof refusal?.code === 'string' && typeof refusal.reason === 'string'
    ? (refusal as Refusal)
    : undefined;
}
