import { sql } from 'kysely';
import type { Actor } from '../../../core/records/user.js';
import { isAdmin } from '../../../core/records/user.js';
import { agentUsableBy } from './agent-usable-by.js';
import type { SqlContext } from './sql-context.js';
import { preparedQueryFamily } from './prepared-query.js';

/** Allow-lists longer than this are compiled on each call rather than kept. */
const KEPT_SLUG_COUNT = 16;

interface Shape {
  admin: boolean;
  /** How many slugs the allow-list names; undefined: every subagent. */
  slugs: number | undefined;
}

const usableSubagents = preparedQueryFamily({
  key: (shape: Shape) => `${shape.admin}:${shape.slugs ?? '*'}`,
  keep: (shape) => (shape.slugs ?? 0) <= KEPT_SLUG_COUNT,
  build: (shape: Shape) => (db, args: Record<string, string>) => {
    const actor: Actor = { id: args.userId as string, role: shape.admin ? 'admin' : 'member' };
    let query = db.selectFrom('agents').selectAll('agents').where('agents.is_subagent', '=', sql.lit(1));
    if (shape.slugs !== undefined) {
      const slugs = Array.from({ length: shape.slugs }, (_, index) => args[`slug${index}`] as string);
      query = query.where('agents.slug', 'in', slugs);
    }
    return query
      .where((eb) => agentUsableBy(eb, actor))
      .orderBy('agents.is_default', 'desc')
      .orderBy('agents.name')
      .orderBy('agents.id');
  },
});

/**
 * The subagents a main agent's run may call (every run of one reads them): the same rule as
 * `agents.listUsable`, compiled once per (admin or not, allow-list length) instead of built per run.
 */
export function selectUsableSubagents(ctx: SqlContext, actor: Actor, slugs: readonly string[] | undefined) {
  const args: Record<string, string> = { userId: actor.id };
  slugs?.forEach((slug, index) => (args[`slug${index}`] = slug));
  return usableSubagents({ admin: isAdmin(actor), slugs: slugs?.length })(ctx, args);
}
