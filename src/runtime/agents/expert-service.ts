import { canGrantAgent, canManageAgent } from '../../core/agent-access-policy.js';
import { TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { AccessSource, Agent, AgentAccess } from '../../core/records/agent.js';
import type { Actor } from '../../core/records/user.js';
import type { AgentService } from './agent-service.js';

/** The grant sources an API caller may hand out; `created` belongs to the owner from creation on. */
export type GrantableSource = Exclude<AccessSource, 'created'>;

export interface ExpertService {
  publish(actor: Actor, idOrSlug: string): Promise<Agent>;
  unpublish(actor: Actor, idOrSlug: string): Promise<Agent>;
  /** Managers (owner, admin) only. */
  listGrants(actor: Actor, idOrSlug: string): Promise<AgentAccess[]>;
  /** Idempotent: an existing grant is returned unchanged with `created: false`. */
  grant(
    actor: Actor,
    idOrSlug: string,
    userId: string,
    source: GrantableSource,
  ): Promise<{ grant: AgentAccess; created: boolean }>;
  revokeGrant(actor: Actor, idOrSlug: string, userId: string): Promise<void>;
}

/**
 * The expert side of an agent (docs/records-and-access.md, docs/delegation.md): publishing, and the access grants that decide who may use —
 * and therefore delegate to — it. Visibility goes through the agent service first, so an agent the actor
 * cannot see is `agent_not_found` on every route; only then can the answer be `forbidden`.
 */
export function createExpertService(storage: Storage, agents: AgentService): ExpertService {
  async function grantable(actor: Actor, idOrSlug: string): Promise<Agent> {
    const agent = await agents.get(actor, idOrSlug);
    if (!canGrantAgent(actor, agent)) {
      throw new TroupeError(
        'forbidden',
        agent.owner_id === actor.id
          ? `Only an admin can grant access to a ${agent.visibility} agent; owners grant on shared agents`
          : `Only the owner of a shared agent or an admin can grant access to "${agent.slug}"`,
      );
    }
    return agent;
  }

  return {
    publish: (actor, idOrSlug) => agents.update(actor, idOrSlug, { status: 'published' }),

    unpublish: (actor, idOrSlug) => agents.update(actor, idOrSlug, { status: 'draft' }),

    async listGrants(actor, idOrSlug) {
      const agent = await agents.get(actor, idOrSlug);
      if (!canManageAgent(actor, agent)) {
        throw new TroupeError('forbidden', `Only the owner or an admin can see who may use "${agent.slug}"`);
      }
      return storage.access.listForAgent(agent.id);
    },

    async grant(actor, idOrSlug, userId, source) {
      const agent = await grantable(actor, idOrSlug);
      if ((await storage.users.get(userId)) === undefined) {
        throw new TroupeError('user_not_found', `User "${userId}" not found`);
      }
      const existed = await storage.access.has(userId, agent.id);
      return { grant: await storage.access.grant(userId, agent.id, source), created: !existed };
    },

    async revokeGrant(actor, idOrSlug, userId) {
      const agent = await grantable(actor, idOrSlug);
      const grant = (await storage.access.listForAgent(agent.id)).find((entry) => entry.user_id === userId);
      if (grant === undefined)
        throw new TroupeError('grant_not_found', `User "${userId}" has no grant on "${agent.slug}"`);
      // The creator's grant mirrors ownership; revoking it would change nothing but the record.
      if (grant.source === 'created')
        throw new TroupeError('forbidden', "The creator's grant cannot be revoked");
      await storage.access.revoke(userId, agent.id);
    },
  };
}
