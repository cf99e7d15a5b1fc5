import { TROUPE_OPTIONS_KEY } from '../thread/chat-message.js';

/**
 * The result of an `external` call that started before its worker stopped and left no result
 * (docs/effects-and-forks.md#the-journal): it is not run again, and the model is told to check first.
 */
export const UNKNOWN_OUTCOME_TEXT =
  'The server stopped while this call ran; its outcome is unknown — check before repeating it.';

/** Where a stored tool result says its outcome is unknown: under the part's `providerOptions.troupe`. */
export const UNKNOWN_OUTCOME_KEY = TROUPE_OPTIONS_KEY;

/** Whether a stored tool result is one of `UNKNOWN_OUTCOME_TEXT` (the console marks it). */
export function hasUnknownOutcome(part: { providerOptions?: unknown }): boolean {
  const options = part.providerOptions as Record<string, { outcome?: unknown } | undefined> | undefined;
  return options?.[UNKNOWN_OUTCOME_KEY]?.outcome === 'unknown';
}
