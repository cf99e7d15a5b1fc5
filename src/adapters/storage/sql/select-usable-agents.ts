import { sql } from 'kysely';
import type { AgentListOptions } from '../../../core/ports/storage.js';
import type { Actor } from '../../../core/records/user.js';
import { isAdmin } from '../../../core/records/user.js';
import { agentUsableBy } from './agent-usable-by.js';
import type { SqlContext } from './sql-context.js';
import { preparedQueryFamily } from './prepared-query.js';

/** Slug lists longer than this are compiled on each call rather than kept. */
const KEPT_SLUG_COUNT = 16;

interface Shape {
  admin: boolean;
  subagents: 'exclude' | 'include' | 'only';
  includeDeleted: boolean;
  /** How many slugs the list names; undefined: no slug filter. */
  slugs: number | undefined;
}

const usableAgents = preparedQueryFamily({
  key: (shape: Shape) => `${shape.admin}:${shape.subagents}:${shape.includeDeleted}:${shape.slugs ?? '*'}`,
  keep: (shape) => (shape.slugs ?? 0) <= KEPT_SLUG_COUNT,
  build: (shape: Shape) => (db, args: Record<string, string>) => {
    const actor: Actor = { id: args.userId as string, role: shape.admin ? 'admin' : 'member' };
    let query = db.selectFrom('agents').selectAll('agents');
    if (shape.subagents === 'only') query = query.where('agents.is_subagent', '=', sql.lit(1));
    else if (shape.subagents === 'exclude') query = query.where('agents.is_subagent', '=', sql.lit(0));
    if (shape.slugs !== undefined) {
      const slugs = Array.from({ length: shape.slugs }, (_, index) => args[`slug${index}`] as string);
      query = query.where('agents.slug', 'in', slugs);
    }
    return query
      .where((eb) => agentUsableBy(eb, actor, { includeDeleted: shape.includeDeleted }))
      .orderBy('agents.is_default', 'desc')
      .orderBy('agents.name')
      .orderBy('agents.id');
  },
});

/**
 * The agents `actor` may use (`agents.listUsable`), compiled once per shape (admin or not, which agents,
 * deleted ones or not, how many slugs): every main agent's run reads its subagents through it.
 */
export function selectUsableAgents(ctx: SqlContext, actor: Actor, options: AgentListOptions) {
  const args: Record<string, string> = { userId: actor.id };
  options.slugs?.forEach((slug, index) => (args[`slug${index}`] = slug));
  return usableAgents({
    admin: isAdmin(actor),
    subagents:
      options.subagents_only === true ? 'only' : options.include_subagents === true ? 'include' : 'exclude',
    includeDeleted: options.include_deleted === true,
    slugs: options.slugs?.length,
  })(ctx, args);
}
