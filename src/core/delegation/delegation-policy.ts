import { isAgentId, SLUG_PATTERN } from '../agent-access-policy.js';
import { TroupeError } from '../errors.js';
import type { DelegationPolicy } from '../records/user.js';

/** At most this many whitelist entries are kept (Profy's `DELEGATION_WHITELIST_MAX`). */
export const DELEGATION_WHITELIST_MAX = 10;

export interface NormalizedDelegationPolicy {
  policy: DelegationPolicy;
  /** What is stored and applied: trimmed, de-duplicated, at most DELEGATION_WHITELIST_MAX entries. */
  whitelist: string[];
  /** Entries over the limit, in the order they were sent; reported back to the client and logged. */
  dropped: string[];
}

/** A whitelist entry names an expert by slug or id (docs/delegation.md); anything else can never match. */
export function isExpertRef(value: string): boolean {
  return SLUG_PATTERN.test(value) || isAgentId(value);
}

/**
 * Turns a requested policy into the stored one. Decisions (documented in docs/delegation.md):
 * - `whitelist` needs at least one entry (docs/delegation.md: "non-empty list"); an empty one is refused;
 * - with `none` or `all` a sent whitelist is ignored and the stored one cleared, so what is stored is what
 *   applies (the console sends its list along whatever policy is picked);
 * - duplicates collapse silently (nothing is lost); entries past the tenth are dropped and reported.
 */
export function normalizeDelegationPolicy(
  policy: DelegationPolicy,
  whitelist: readonly string[] = [],
): NormalizedDelegationPolicy {
  if (policy !== 'whitelist') return { policy, whitelist: [], dropped: [] };
  const entries = [...new Set(whitelist.map((entry) => entry.trim()))];
  const invalid = entries.filter((entry) => !isExpertRef(entry));
  if (invalid.length > 0) {
    throw new TroupeError(
      'validation_failed',
      `Whitelist entries must be expert slugs or ids: ${invalid.join(', ')}`,
      {
        details: {
          issues: invalid.map((entry) => ({
            path: 'whitelist',
            message: `not a slug or id: ${entry}`,
            code: 'custom',
          })),
        },
      },
    );
  }
  if (entries.length === 0) {
    throw new TroupeError(
      'validation_failed',
      'The whitelist policy needs at least one expert in `whitelist`',
      {
        details: {
          issues: [
            { path: 'whitelist', message: 'must not be empty with policy "whitelist"', code: 'custom' },
          ],
        },
      },
    );
  }
  return {
    policy,
    whitelist: entries.slice(0, DELEGATION_WHITELIST_MAX),
    dropped: entries.slice(DELEGATION_WHITELIST_MAX),
  };
}
