import { compareCodeUnits } from '../../core/compare-code-units.js';
import { TroupeError } from '../../core/errors.js';
import type { Agent } from '../../core/records/agent.js';
import type { Actor } from '../../core/records/user.js';
import type { AgentService } from '../agents/agent-service.js';

/**
 * An A2A agent is a published main agent of this server (docs/interoperability.md); drafts and subagents have no card and
 * no endpoint, and a remote expert is not republished (this server would only relay someone else's agent).
 */
export function isPublishedExpert(agent: Agent): boolean {
  return agent.status === 'published' && agent.backend === 'chat' && agent.deleted_at === null;
}

/** A published expert anyone may discover: its card is served without a token (README "A2A"). */
export function isPublicExpert(agent: Agent): boolean {
  return isPublishedExpert(agent) && agent.visibility === 'public';
}

/**
 * Nobody: owns nothing, holds no grant, so what it may use is exactly the public agents. Discovery without a
 * token asks as this actor, through the same access rule as everyone else.
 */
const ANONYMOUS: Actor = { id: '', role: 'member' };

/** The published experts the actor may use, ordered by slug (the order of the server card's skills). */
export async function listPublishedExperts(agents: AgentService, actor: Actor): Promise<Agent[]> {
  const usable = await agents.list(actor);
  return usable.filter(isPublishedExpert).sort((a, b) => compareCodeUnits(a.slug, b.slug));
}

/** The experts of the public (token-less) server card. */
export async function listPublicExperts(agents: AgentService): Promise<Agent[]> {
  return (await listPublishedExperts(agents, ANONYMOUS)).filter(isPublicExpert);
}

/** By id or slug; anything unpublished or invisible is `agent_not_found`, so probing learns nothing. */
export async function getPublishedExpert(
  agents: AgentService,
  actor: Actor | undefined,
  idOrSlug: string,
): Promise<Agent> {
  const agent = await agents.get(actor ?? ANONYMOUS, idOrSlug);
  if (!isPublishedExpert(agent) || (actor === undefined && !isPublicExpert(agent)))
    throw new TroupeError('agent_not_found', `Agent "${idOrSlug}" not found`);
  return agent;
}
