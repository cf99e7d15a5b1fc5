import type { Kysely, Selectable, Updateable } from 'kysely';
import { TroupeError } from '../../../core/errors.js';
import { newId } from '../../../core/ids.js';
import type { Agent, AgentConfig } from '../../../core/records/agent.js';
import type { Actor } from '../../../core/records/user.js';
import type {
  AgentListOptions,
  AgentPatch,
  AgentRepository,
  DelegatableExpert,
  DelegatableFilter,
  NewAgent,
} from '../../../core/ports/storage.js';
import type { AgentsTable, DatabaseSchema } from './database-schema.js';
import { agentUsableBy } from './agent-usable-by.js';
import { selectUsableAgents } from './select-usable-agents.js';
import {
  atomically,
  fromJson,
  fromSqlBoolean,
  nowIso,
  toJson,
  toSqlBoolean,
  translateUniqueViolation,
} from './sql-context.js';
import type { SqlContext, UniqueViolationErrors } from './sql-context.js';
import { preparedQuery } from './prepared-query.js';

const selectAgent = preparedQuery((db, args: { id: string }) =>
  db.selectFrom('agents').selectAll().where('id', '=', args.id),
);

export function agentFromRow(row: Selectable<AgentsTable>): Agent {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    description: row.description,
    backend: row.backend,
    is_subagent: fromSqlBoolean(row.is_subagent),
    owner_id: row.owner_id,
    visibility: row.visibility,
    config: fromJson<AgentConfig>(row.config),
    status: row.status,
    delegatable: fromSqlBoolean(row.delegatable),
    delegation_brief: row.delegation_brief,
    is_default: fromSqlBoolean(row.is_default),
    deleted_at: row.deleted_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function patchToRow(patch: AgentPatch): Updateable<AgentsTable> {
  const row: Updateable<AgentsTable> = {};
  if (patch.slug !== undefined) row.slug = patch.slug;
  if (patch.name !== undefined) row.name = patch.name;
  if (patch.description !== undefined) row.description = patch.description;
  if (patch.visibility !== undefined) row.visibility = patch.visibility;
  if (patch.config !== undefined) row.config = toJson(patch.config);
  if (patch.status !== undefined) row.status = patch.status;
  if (patch.delegatable !== undefined) row.delegatable = toSqlBoolean(patch.delegatable);
  if (patch.delegation_brief !== undefined) row.delegation_brief = patch.delegation_brief;
  if (patch.is_default !== undefined) row.is_default = toSqlBoolean(patch.is_default);
  return row;
}

function slugErrors(slug: string | undefined): UniqueViolationErrors {
  return {
    agents_slug_uq: () =>
      new TroupeError('agent_slug_taken', `The agent slug ${slug ?? ''} is already taken`),
    // Unreachable while every writer goes through clearDefault; kept so a violation still reads clearly.
    agents_default_uq: () =>
      new TroupeError('internal', 'Another agent was made default concurrently; retry'),
  };
}

/**
 * Clears the default flag everywhere but `keepId`, which the caller then sets: the partial unique index
 * allows one default only. Writers that move the default are serialised where the engine needs it, or
 * two of them could each clear the other's old default and then collide on the index.
 */
async function clearDefault(
  ctx: SqlContext,
  db: Kysely<DatabaseSchema>,
  keepId: string,
  at: string,
): Promise<void> {
  await ctx.dialect.lockKey?.(db, 'agents:default');
  await db
    .updateTable('agents')
    .set({ is_default: 0, updated_at: at })
    .where('is_default', '=', 1)
    .where('id', '<>', keepId)
    .execute();
}

export class SqlAgentRepository implements AgentRepository {
  constructor(private readonly ctx: SqlContext) {}

  async create(agent: NewAgent): Promise<Agent> {
    const now = nowIso(this.ctx);
    const row: AgentsTable = {
      id: newId('agt'),
      slug: agent.slug,
      name: agent.name,
      description: agent.description,
      backend: agent.backend,
      is_subagent: toSqlBoolean(agent.is_subagent),
      owner_id: agent.owner_id,
      visibility: agent.visibility,
      config: toJson(agent.config),
      status: agent.status,
      delegatable: toSqlBoolean(agent.delegatable),
      delegation_brief: agent.delegation_brief,
      is_default: toSqlBoolean(agent.is_default),
      deleted_at: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await atomically(this.ctx, async (db) => {
        if (agent.is_default) await clearDefault(this.ctx, db, row.id, now);
        await db.insertInto('agents').values(row).execute();
      });
    } catch (error) {
      translateUniqueViolation(this.ctx, error, slugErrors(agent.slug));
    }
    return agentFromRow(row);
  }

  async get(id: string): Promise<Agent | undefined> {
    const row = (await selectAgent(this.ctx, { id })).rows[0];
    return row && agentFromRow(row);
  }

  async getBySlug(slug: string): Promise<Agent | undefined> {
    const row = await this.ctx.db
      .selectFrom('agents')
      .selectAll()
      .where('slug', '=', slug)
      .executeTakeFirst();
    return row && agentFromRow(row);
  }

  async update(id: string, patch: AgentPatch): Promise<Agent> {
    const now = nowIso(this.ctx);
    try {
      const row = await atomically(this.ctx, async (db) => {
        if (patch.is_default === true) await clearDefault(this.ctx, db, id, now);
        const updated = await db
          .updateTable('agents')
          .set({ ...patchToRow(patch), updated_at: now })
          .where('id', '=', id)
          .returningAll()
          .executeTakeFirst();
        // Thrown inside the transaction so a cleared default comes back.
        if (updated === undefined) throw new TroupeError('agent_not_found', `Agent ${id} not found`);
        return updated;
      });
      return agentFromRow(row);
    } catch (error) {
      return translateUniqueViolation(this.ctx, error, slugErrors(patch.slug));
    }
  }

  async softDelete(id: string, at: string): Promise<void> {
    // A deleted agent stops being the default; a second delete keeps the first deletion time.
    const result = await this.ctx.db
      .updateTable('agents')
      .set((eb) => ({ deleted_at: eb.fn.coalesce('deleted_at', eb.val(at)), is_default: 0, updated_at: at }))
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0)
      throw new TroupeError('agent_not_found', `Agent ${id} not found`);
  }

  async setDefault(id: string): Promise<void> {
    const now = nowIso(this.ctx);
    try {
      await atomically(this.ctx, async (db) => {
        await clearDefault(this.ctx, db, id, now);
        const result = await db
          .updateTable('agents')
          .set({ is_default: 1, updated_at: now })
          .where('id', '=', id)
          .where('deleted_at', 'is', null)
          .executeTakeFirst();
        // Thrown inside the transaction so the cleared default comes back.
        if (Number(result.numUpdatedRows) === 0)
          throw new TroupeError('agent_not_found', `Agent ${id} not found`);
      });
    } catch (error) {
      translateUniqueViolation(this.ctx, error, slugErrors(undefined));
    }
  }

  async getDefault(): Promise<Agent | undefined> {
    const row = await this.ctx.db
      .selectFrom('agents')
      .selectAll()
      .where('is_default', '=', 1)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row && agentFromRow(row);
  }

  async listUsable(actor: Actor, options: AgentListOptions = {}): Promise<Agent[]> {
    // `in ()` is not SQL; an explicit empty list simply matches nothing.
    if (options.slugs?.length === 0) return [];
    const { rows } = await selectUsableAgents(this.ctx, actor, options);
    return rows.map(agentFromRow);
  }

  async listDelegatable(actor: Actor, filter: DelegatableFilter = {}): Promise<DelegatableExpert[]> {
    const restricted = filter.ids !== undefined || filter.slugs !== undefined;
    const ids = filter.ids ?? [];
    const slugs = filter.slugs ?? [];
    // `in ()` is not SQL; an explicit empty list simply matches nothing.
    if (restricted && ids.length === 0 && slugs.length === 0) return [];
    let query = this.ctx.db
      .selectFrom('agents')
      .selectAll('agents')
      .select((eb) =>
        eb.fn.coalesce('agents.delegation_brief', 'agents.description', eb.val('')).as('roster_brief'),
      )
      // The four conditions of docs/delegation.md, all in this one statement (access is the fourth, below).
      .where('agents.delegatable', '=', 1)
      .where('agents.status', '=', 'published')
      .where('agents.is_subagent', '=', 0)
      .where((eb) => agentUsableBy(eb, actor));
    if (filter.exclude_id) query = query.where('agents.id', '<>', filter.exclude_id);
    if (restricted) {
      query = query.where((eb) =>
        eb.or([
          ...(ids.length > 0 ? [eb('agents.id', 'in', [...ids])] : []),
          ...(slugs.length > 0 ? [eb('agents.slug', 'in', [...slugs])] : []),
        ]),
      );
    }
    // By slug, the identifier the roster shows: display names are not unique and never order or pick.
    const rows = await query.orderBy('agents.slug').execute();
    return rows.map((row) => ({ agent: agentFromRow(row), brief: String(row.roster_brief) }));
  }
}
