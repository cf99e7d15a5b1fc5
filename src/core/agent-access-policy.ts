import type { Agent } from './records/agent.js';
import type { Actor } from './records/user.js';
import { isAdmin } from './records/user.js';

/**
 * Who may use and who may manage an agent (docs/records-and-access.md#access). Pure: the caller looks up the grant.
 *
 * Visibility:
 * - `private`: usable by its owner, admins and holders of an `agent_access` grant;
 * - `shared`: the same audience as `private` — a grant is still needed — but the owner may hand out
 *   grants (the delegation issue builds on that), whereas a private agent's grants come only from admins;
 * - `public`: usable by every user.
 * A soft-deleted agent is usable by nobody, admins included: its runs and grants stay for history only.
 */
export function canUseAgent(actor: Actor, agent: Agent, hasGrant: boolean): boolean {
  if (agent.deleted_at !== null) return false;
  return isAdmin(actor) || agent.owner_id === actor.id || hasGrant || agent.visibility === 'public';
}

/**
 * Whether `canUseAgent` turns on the grant for this actor and agent; when it does not, the caller need not
 * look the grant up (a run of the owner's own agent reads no `agent_access` row).
 */
export function grantDecides(actor: Actor, agent: Agent): boolean {
  return (
    agent.deleted_at === null &&
    !isAdmin(actor) &&
    agent.owner_id !== actor.id &&
    agent.visibility !== 'public'
  );
}

/** Editing, deleting and re-publishing are for the owner and admins; a grant only lends use. */
export function canManageAgent(actor: Actor, agent: Agent): boolean {
  if (agent.deleted_at !== null) return false;
  return isAdmin(actor) || agent.owner_id === actor.id;
}

/** Whether the owner may grant others access (the `shared` visibility); admins always may. */
export function canGrantAgent(actor: Actor, agent: Agent): boolean {
  if (agent.deleted_at !== null) return false;
  return isAdmin(actor) || (agent.owner_id === actor.id && agent.visibility === 'shared');
}

/** Identifier style: lowercase letter first, then letters, digits, `_` or `-`; 2 to 63 chars. */
export const SLUG_PATTERN = /^[a-z][a-z0-9_-]{1,62}$/;

/**
 * Slugs the HTTP API cannot route to (`/api/agent/default`, `/api/agent/runs/…`) or that would read as
 * another agent's id (`agt_<hex>`), since `/api/agent/{id}` accepts both.
 */
const RESERVED_SLUGS = new Set(['default', 'runs']);
const AGENT_ID_PATTERN = /^agt_[0-9a-f]{20}$/;

export function isAgentId(value: string): boolean {
  return AGENT_ID_PATTERN.test(value);
}

/** Why `slug` is not acceptable, or undefined when it is. */
export function slugProblem(slug: string): string | undefined {
  if (!SLUG_PATTERN.test(slug)) {
    return 'slug must start with a lowercase letter and contain only a-z, 0-9, "_" or "-" (2 to 63 chars)';
  }
  if (RESERVED_SLUGS.has(slug)) return `slug "${slug}" is reserved`;
  if (isAgentId(slug)) return 'slug must not look like an agent id';
  return undefined;
}

export function isValidSlug(slug: string): boolean {
  return slugProblem(slug) === undefined;
}

/**
 * A slug derived from a display name, or undefined when nothing usable is left (e.g. a name in a
 * non-Latin script): the caller then asks for an explicit slug instead of inventing one.
 */
export function slugify(name: string): string | undefined {
  const base = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .replace(/-+$/, '')
    .slice(0, 56)
    .replace(/-+$/, '');
  return isValidSlug(base) ? base : undefined;
}
