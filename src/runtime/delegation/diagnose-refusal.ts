import { canUseAgent, isAgentId } from '../../core/agent-access-policy.js';
import { DELEGATION_TEXTS } from '../../core/delegation/delegation-texts.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Actor } from '../../core/records/user.js';
import { isAdmin } from '../../core/records/user.js';

/**
 * Why the one roster query did not return `ref`. Only picks the message: the decision was the query's.
 * Anything the actor may not use reads as "not found or access denied", so nothing leaks; the finer
 * reasons (self, not delegatable, draft) are only told to someone who can use the expert anyway.
 */
export async function diagnoseRefusal(
  storage: Storage,
  actor: Actor,
  ref: string,
  currentAgentId: string | null,
): Promise<string> {
  const agent = isAgentId(ref) ? await storage.agents.get(ref) : await storage.agents.getBySlug(ref);
  if (!agent || agent.is_subagent) return DELEGATION_TEXTS.notFound;
  const needsGrant = !isAdmin(actor) && agent.owner_id !== actor.id && agent.visibility !== 'public';
  const hasGrant = needsGrant && (await storage.access.has(actor.id, agent.id));
  if (!canUseAgent(actor, agent, hasGrant)) return DELEGATION_TEXTS.notFound;
  if (agent.id === currentAgentId) return DELEGATION_TEXTS.self;
  if (!agent.delegatable) return DELEGATION_TEXTS.notDelegatable;
  if (agent.status !== 'published') return DELEGATION_TEXTS.notPublished;
  return DELEGATION_TEXTS.notFound;
}
