import type { AccessSource, Agent, AgentAccess } from '../records/agent.js';
import type { Actor } from '../records/user.js';

/* The agents and agent access grants part of the storage port (`storage.ts`). */

/** The repository assigns the id and times; a new agent is live. */
export type NewAgent = Omit<Agent, 'id' | 'deleted_at' | 'created_at' | 'updated_at'>;

export type AgentPatch = Partial<
  Pick<
    Agent,
    | 'slug'
    | 'name'
    | 'description'
    | 'visibility'
    | 'config'
    | 'status'
    | 'delegatable'
    | 'delegation_brief'
    | 'is_default'
  >
>;

export interface AgentListOptions {
  include_subagents?: boolean;
  /** Subagents only (what a main agent may dispatch to); implies `include_subagents`. */
  subagents_only?: boolean;
  /** Only agents with these slugs; an empty list matches none. */
  slugs?: readonly string[];
  /** Include soft-deleted agents (admin tooling); default false. */
  include_deleted?: boolean;
}

export interface AgentRepository {
  create(agent: NewAgent): Promise<Agent>;
  /** By id, deleted ones included: callers decide what a deleted agent means to them. */
  get(id: string): Promise<Agent | undefined>;
  getBySlug(slug: string): Promise<Agent | undefined>;
  update(id: string, patch: AgentPatch): Promise<Agent>;
  softDelete(id: string, at: string): Promise<void>;
  /** Makes `id` the only default agent (clears the flag elsewhere in the same statement group). */
  setDefault(id: string): Promise<void>;
  getDefault(): Promise<Agent | undefined>;
  /**
   * The agents `actor` may use, filtered in SQL: admin, owner, grant holder, or public. Ordered default
   * first, then by name.
   */
  listUsable(actor: Actor, options?: AgentListOptions): Promise<Agent[]>;
  /**
   * Experts `actor` may delegate to, in ONE query enforcing all four conditions of docs/delegation.md — the actor
   * has access (admin, owner, grant, public), `delegatable`, `published`, not deleted — plus: not a
   * subagent, not `exclude_id`. Each comes with `brief = coalesce(delegation_brief, description, '')`,
   * computed in SQL. Ordered by slug (display names are not identifiers).
   */
  listDelegatable(actor: Actor, filter?: DelegatableFilter): Promise<DelegatableExpert[]>;
}

export interface DelegatableFilter {
  /**
   * Only experts with one of these ids or slugs. Both missing: every expert passing the conditions;
   * both empty: none.
   */
  ids?: readonly string[];
  slugs?: readonly string[];
  /** The delegating expert: never its own delegate. */
  exclude_id?: string | null;
}

export interface DelegatableExpert {
  agent: Agent;
  brief: string;
}

export interface AccessRepository {
  /** Idempotent: granting again keeps the first grant. */
  grant(userId: string, agentId: string, source: AccessSource): Promise<AgentAccess>;
  revoke(userId: string, agentId: string): Promise<boolean>;
  has(userId: string, agentId: string): Promise<boolean>;
  listForAgent(agentId: string): Promise<AgentAccess[]>;
}
