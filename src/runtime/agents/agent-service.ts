import { canManageAgent, canUseAgent, isAgentId, slugify } from '../../core/agent-access-policy.js';
import type { Clock } from '../../core/clock.js';
import { isoNow, systemClock } from '../../core/clock.js';
import { isTroupeError, TroupeError } from '../../core/errors.js';
import { keepRedactedSecrets } from '../../core/mcp-secrets.js';
import { remoteExpertConfigProblem } from '../../core/remote-experts/remote-expert-rules.js';
import type { AgentPatch, Storage } from '../../core/ports/storage.js';
import type { Agent, AgentBackend } from '../../core/records/agent.js';
import type { Actor } from '../../core/records/user.js';
import { isAdmin } from '../../core/records/user.js';
import { DEFAULT_LIMITS, type RunLimits } from '../../run-limits.js';
import type { CreateAgentInput, UpdateAgentInput } from './agent-input-schemas.js';
import { assertLimitsWithinServer } from './agent-limits.js';
import { createAgentInputSchema, updateAgentInputSchema } from './agent-input-schemas.js';
import { parseOrThrow } from '../../core/to-validation-error.js';

export interface AgentListOptions {
  /** Subagents are hidden unless asked for (docs/subagents.md): they cannot be chatted with. */
  include_subagents?: boolean;
}

export interface AgentService {
  list(actor: Actor, options?: AgentListOptions): Promise<Agent[]>;
  /** By id or slug; `agent_not_found` for anything the actor may not use, so ids never leak. */
  get(actor: Actor, idOrSlug: string): Promise<Agent>;
  getDefault(actor: Actor): Promise<Agent>;
  create(actor: Actor, input: CreateAgentInput): Promise<Agent>;
  update(actor: Actor, idOrSlug: string, input: UpdateAgentInput): Promise<Agent>;
  /** Soft delete: runs and conversations keep pointing at the record. */
  delete(actor: Actor, idOrSlug: string): Promise<void>;
  setDefault(actor: Actor, idOrSlug: string): Promise<Agent>;
}

export interface AgentServiceOptions {
  clock?: Clock;
  /** The server's run limits: an agent's `config.limits` may narrow them, never raise them. */
  limits?: RunLimits;
}

function notFound(idOrSlug: string): TroupeError {
  return new TroupeError('agent_not_found', `Agent "${idOrSlug}" not found`);
}

/** Only experts are published (docs/delegation.md); a subagent is never a delegation target. */
function subagentCannotBePublished(): TroupeError {
  return new TroupeError('subagent_cannot_be_published', 'A subagent cannot be published; only experts are');
}

/** Derives the missing half of backend/is_subagent, refusing a pair that contradicts itself. */
function resolveBackend(backend: AgentBackend | undefined, isSubagent: boolean | undefined): AgentBackend {
  const resolved = backend ?? (isSubagent === true ? 'subagent' : 'chat');
  if (isSubagent !== undefined && isSubagent !== (resolved === 'subagent')) {
    throw new TroupeError(
      'agent_backend_mismatch',
      `is_subagent must be ${String(resolved === 'subagent')} for backend "${resolved}"`,
    );
  }
  return resolved;
}

export function createAgentService(storage: Storage, options: AgentServiceOptions = {}): AgentService {
  const clock = options.clock ?? systemClock;
  const serverLimits = options.limits ?? DEFAULT_LIMITS;

  async function find(store: Storage, idOrSlug: string): Promise<Agent | undefined> {
    return isAgentId(idOrSlug) ? store.agents.get(idOrSlug) : store.agents.getBySlug(idOrSlug);
  }

  /** The one permission gate of detail, update and delete. */
  async function resolveUsable(store: Storage, actor: Actor, idOrSlug: string): Promise<Agent> {
    const agent = await find(store, idOrSlug);
    if (agent === undefined) throw notFound(idOrSlug);
    // Only look the grant up when it can change the answer.
    const needsGrant = !isAdmin(actor) && agent.owner_id !== actor.id && agent.visibility !== 'public';
    const hasGrant = needsGrant && (await store.access.has(actor.id, agent.id));
    if (!canUseAgent(actor, agent, hasGrant)) throw notFound(idOrSlug);
    return agent;
  }

  async function resolveManageable(store: Storage, actor: Actor, idOrSlug: string): Promise<Agent> {
    const agent = await resolveUsable(store, actor, idOrSlug);
    // Forbidden is safe here: the actor can already see this agent, so nothing leaks.
    if (!canManageAgent(actor, agent)) {
      throw new TroupeError('forbidden', `Only the owner or an admin can change agent "${agent.slug}"`);
    }
    return agent;
  }

  async function reload(store: Storage, id: string): Promise<Agent> {
    const agent = await store.agents.get(id);
    if (agent === undefined)
      throw new TroupeError('internal', `Agent ${id} vanished inside its own transaction`);
    return agent;
  }

  async function ensureSlugFree(store: Storage, slug: string, exceptId?: string): Promise<void> {
    const holder = await store.agents.getBySlug(slug);
    // Deleted agents keep their slug: old runs and mentions must not start resolving to a new agent.
    if (holder !== undefined && holder.id !== exceptId) {
      throw new TroupeError('agent_slug_taken', `Slug "${slug}" is already taken`);
    }
  }

  /** A free slug derived from the name: `name`, `name-2`, `name-3`… The unique index settles races. */
  async function deriveSlug(store: Storage, name: string): Promise<string> {
    const base = slugify(name);
    if (base === undefined) {
      throw new TroupeError('validation_failed', 'Cannot derive a slug from this name; send a "slug"', {
        details: {
          issues: [{ path: 'slug', message: 'required when the name has no latin letters', code: 'custom' }],
        },
      });
    }
    for (let attempt = 1; attempt <= 100; attempt += 1) {
      const candidate = attempt === 1 ? base : `${base}-${attempt}`;
      if ((await store.agents.getBySlug(candidate)) === undefined) return candidate;
    }
    throw new TroupeError('agent_slug_taken', `Every slug derived from "${name}" is taken; send a "slug"`);
  }

  return {
    async list(actor, listOptions = {}) {
      return storage.agents.listUsable(actor, { include_subagents: listOptions.include_subagents ?? false });
    },

    async get(actor, idOrSlug) {
      return resolveUsable(storage, actor, idOrSlug);
    },

    async getDefault(actor) {
      const agent = await storage.agents.getDefault();
      if (agent === undefined) throw new TroupeError('agent_not_found', 'No default agent is set');
      try {
        return await resolveUsable(storage, actor, agent.id);
      } catch (error) {
        if (isTroupeError(error, 'agent_not_found')) {
          throw new TroupeError('agent_not_found', 'The default agent is not available to you');
        }
        throw error;
      }
    },

    async create(actor, rawInput) {
      const input = parseOrThrow(createAgentInputSchema, rawInput);
      assertLimitsWithinServer(serverLimits, input.config);
      const backend = resolveBackend(input.backend, input.is_subagent);
      if (input.is_default && backend === 'subagent') {
        throw new TroupeError('subagent_cannot_be_default', 'A subagent cannot be the default agent');
      }
      if (input.status === 'published' && backend === 'subagent') throw subagentCannotBePublished();
      if (input.is_default && !isAdmin(actor)) {
        throw new TroupeError('forbidden', 'Only an admin can choose the default agent');
      }
      const remoteProblem = remoteExpertConfigProblem(actor, backend, input.config);
      if (remoteProblem) throw remoteProblem;
      return storage.transaction(async (tx) => {
        const slug = input.slug ?? (await deriveSlug(tx, input.name));
        if (input.slug !== undefined) await ensureSlugFree(tx, slug);
        const agent = await tx.agents.create({
          slug,
          name: input.name,
          description: input.description,
          backend,
          is_subagent: backend === 'subagent',
          owner_id: actor.id,
          visibility: input.visibility,
          // A new agent has no stored secrets, so the read-side placeholder is refused, never stored.
          config: keepRedactedSecrets(input.config, undefined),
          status: input.status,
          delegatable: input.delegatable,
          delegation_brief: input.delegation_brief,
          // The repository clears the previous default in the same transaction.
          is_default: input.is_default,
        });
        await tx.access.grant(actor.id, agent.id, 'created');
        return agent;
      });
    },

    async update(actor, idOrSlug, rawInput) {
      const input = parseOrThrow(updateAgentInputSchema, rawInput);
      if (input.config !== undefined) assertLimitsWithinServer(serverLimits, input.config);
      return storage.transaction(async (tx) => {
        const agent = await resolveManageable(tx, actor, idOrSlug);
        if (input.backend !== undefined && input.backend !== agent.backend) {
          throw new TroupeError(
            'agent_backend_mismatch',
            `The backend of an agent cannot change (agent "${agent.slug}" is "${agent.backend}")`,
          );
        }
        resolveBackend(agent.backend, input.is_subagent);
        if (input.config !== undefined) {
          const remoteProblem = remoteExpertConfigProblem(actor, agent.backend, input.config);
          if (remoteProblem) throw remoteProblem;
        }
        if (input.status === 'published' && agent.is_subagent) throw subagentCannotBePublished();
        if (input.slug !== undefined && input.slug !== agent.slug)
          await ensureSlugFree(tx, input.slug, agent.id);
        const patch: AgentPatch = {};
        if (input.slug !== undefined) patch.slug = input.slug;
        if (input.name !== undefined) patch.name = input.name;
        if (input.description !== undefined) patch.description = input.description;
        if (input.visibility !== undefined) patch.visibility = input.visibility;
        // Secrets are write-only (docs/egress-and-secrets.md): the placeholder a read showed keeps the stored value.
        if (input.config !== undefined) patch.config = keepRedactedSecrets(input.config, agent.config);
        if (input.status !== undefined) patch.status = input.status;
        if (input.delegatable !== undefined) patch.delegatable = input.delegatable;
        if (input.delegation_brief !== undefined) patch.delegation_brief = input.delegation_brief;
        if (Object.keys(patch).length === 0) return agent;
        return tx.agents.update(agent.id, patch);
      });
    },

    async delete(actor, idOrSlug) {
      await storage.transaction(async (tx) => {
        const agent = await resolveManageable(tx, actor, idOrSlug);
        if (agent.is_default) {
          throw new TroupeError(
            'forbidden',
            'The default agent cannot be deleted; make another agent the default first',
          );
        }
        await tx.agents.softDelete(agent.id, isoNow(clock));
      });
    },

    async setDefault(actor, idOrSlug) {
      if (!isAdmin(actor)) throw new TroupeError('forbidden', 'Only an admin can choose the default agent');
      return storage.transaction(async (tx) => {
        const agent = await resolveUsable(tx, actor, idOrSlug);
        if (agent.is_subagent) {
          throw new TroupeError('subagent_cannot_be_default', 'A subagent cannot be the default agent');
        }
        await tx.agents.setDefault(agent.id);
        return reload(tx, agent.id);
      });
    },
  };
}
