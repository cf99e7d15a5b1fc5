import type { Refusal } from '../records/refusal.js';
import { TROUPE_OPTIONS_KEY, type ProviderOptions } from './chat-message.js';

/**
 * A refused call's refusal, kept on its stored tool-result part (providers ignore the `troupe` options), so
 * a transcript read back from the thread shows a rejection or an unavailable tool as the live stream did
 * (docs/runs.md#events).
 */
export function refusalOptions(refusal: Refusal | undefined): { providerOptions?: ProviderOptions } {
  return refusal ? { providerOptions: { [TROUPE_OPTIONS_KEY]: { refusal } } } : {};
}

/** The refusal stored on a tool-result part, if it has one. */
export function toolResultRefusal(part: { providerOptions?: unknown }): Refusal | undefined {
  const options = part.providerOptions as Record<string, { refusal?: unknown } | undefined> | undefined;
  const refusal = options?.[TROUPE_OPTIONS_KEY]?.refusal as Partial<Refusal> | undefined;
  return typeof refusal?.code === 'string' && typeof refusal.reason === 'string'
    ? (refusal as Refusal)
    : undefined;
}
