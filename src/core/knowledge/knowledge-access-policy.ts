import { SLUG_PATTERN } from '../agent-access-policy.js';
import type { KnowledgeSource } from '../records/knowledge.js';
import type { Actor } from '../records/user.js';
import { isAdmin } from '../records/user.js';

/*
 * Who may use, manage and share a knowledge source: the same rules as agents (docs/records-and-access.md#access, §9).
 * `private` and `shared` need ownership, admin or a grant; `shared` also lets the owner hand out grants;
 * `public` is usable by every user. Pure: the caller looks the grant up.
 */

export function canUseSource(actor: Actor, source: KnowledgeSource, hasGrant: boolean): boolean {
  return isAdmin(actor) || source.owner_id === actor.id || hasGrant || source.visibility === 'public';
}

/** Uploading, deleting and changing visibility: owner and admins; a grant only lends read access. */
export function canManageSource(actor: Actor, source: KnowledgeSource): boolean {
  return isAdmin(actor) || source.owner_id === actor.id;
}

export function canGrantSource(actor: Actor, source: KnowledgeSource): boolean {
  return isAdmin(actor) || (source.owner_id === actor.id && source.visibility === 'shared');
}

const SOURCE_ID_PATTERN = /^kns_[0-9a-f]{20}$/;

export function isKnowledgeSourceId(value: string): boolean {
  return SOURCE_ID_PATTERN.test(value);
}

/** Why `name` cannot name a source, or undefined when it can. Same shape as agent slugs. */
export function sourceNameProblem(name: string): string | undefined {
  if (!SLUG_PATTERN.test(name)) {
    return 'name must start with a lowercase letter and contain only a-z, 0-9, "_" or "-" (2 to 63 chars)';
  }
  if (isKnowledgeSourceId(name)) return 'name must not look like a knowledge source id';
  return undefined;
}
