import {
  DELEGATION_WHITELIST_MAX,
  normalizeDelegationPolicy,
} from '../../core/delegation/delegation-policy.js';
import { TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Actor, DelegationPolicy } from '../../core/records/user.js';

export interface DelegationPolicySettings {
  policy: DelegationPolicy;
  whitelist: string[];
  max_whitelist: number;
}

/** The answer of an update: what is now stored, and what did not fit. */
export interface DelegationPolicyUpdate extends DelegationPolicySettings {
  dropped: string[];
}

/** Where the "excess dropped" line goes; the HTTP layer hands in its structured logger. */
export type DelegationPolicyLog = (message: string, context: Record<string, unknown>) => void;

export interface DelegationPolicyService {
  get(actor: Actor): Promise<DelegationPolicySettings>;
  set(
    actor: Actor,
    input: { policy: DelegationPolicy; whitelist?: readonly string[] | undefined },
  ): Promise<DelegationPolicyUpdate>;
}

/** The user's delegation policy (docs/delegation.md): `none`, `all`, or a whitelist of at most ten experts. */
export function createDelegationPolicyService(
  storage: Storage,
  log: DelegationPolicyLog = () => undefined,
): DelegationPolicyService {
  return {
    async get(actor) {
      const user = await storage.users.get(actor.id);
      if (!user) throw new TroupeError('user_not_found', `User ${actor.id} not found`);
      return {
        policy: user.delegation_policy,
        whitelist: user.delegation_whitelist,
        max_whitelist: DELEGATION_WHITELIST_MAX,
      };
    },

    async set(actor, input) {
      const normalized = normalizeDelegationPolicy(input.policy, input.whitelist ?? []);
      const user = await storage.users.setDelegationPolicy(actor.id, normalized.policy, normalized.whitelist);
      if (normalized.dropped.length > 0) {
        log('delegation whitelist over the limit; excess entries dropped', {
          event: 'delegation_whitelist_truncated',
          user_id: user.id,
          limit: DELEGATION_WHITELIST_MAX,
          kept: normalized.whitelist,
          dropped: normalized.dropped,
        });
      }
      return {
        policy: user.delegation_policy,
        whitelist: user.delegation_whitelist,
        max_whitelist: DELEGATION_WHITELIST_MAX,
        dropped: normalized.dropped,
      };
    },
  };
}
