import { extractMentions, rosterFilter } from '../../core/delegation/delegation-roster.js';
import type { DelegatableExpert, Storage } from '../../core/ports/storage.js';
import type { User } from '../../core/records/user.js';

export interface RosterInput {
  /** The user the run acts for: their policy decides the roster, their access filters it. */
  user: User;
  /** The expert the run belongs to; never in its own roster. */
  currentAgentId: string;
  /** The run's input message, scanned for `@slug` mentions. */
  message: string;
}

/**
 * The experts a run may delegate to (docs/delegation.md): the user's policy (none ⇒ mentions only, all ⇒ every
 * expert passing the conditions, whitelist ⇒ those) plus `@mentions`. Exactly one storage call, so the
 * four conditions are enforced by the database in a single statement and never re-filtered here.
 */
export async function buildRoster(storage: Storage, input: RosterInput): Promise<DelegatableExpert[]> {
  const filter = rosterFilter(
    input.user.delegation_policy,
    input.user.delegation_whitelist,
    extractMentions(input.message),
    input.currentAgentId,
  );
  if (filter === undefined) return [];
  return storage.agents.listDelegatable(input.user, filter);
}
