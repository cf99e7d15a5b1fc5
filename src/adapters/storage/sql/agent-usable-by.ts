import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { Actor } from '../../../core/records/user.js';
import { isAdmin } from '../../../core/records/user.js';
import type { DatabaseSchema } from './database-schema.js';

/**
 * `canUseAgent` (core/agent-access-policy.ts) as one SQL predicate over `agents`, for every query that
 * lists what a user may use: not deleted, and admin, owner, public, or holder of a grant. Tested against
 * the core policy over every combination (`agent-usable-by.test.ts`), so the two cannot drift.
 */
export function agentUsableBy(
  eb: ExpressionBuilder<DatabaseSchema, 'agents'>,
  actor: Actor,
  /** History views list deleted agents too: then only the "who" part of the rule applies. */
  options: { includeDeleted?: boolean } = {},
): Expression<SqlBool> {
  const alive = options.includeDeleted === true ? [] : [eb('agents.deleted_at', 'is', null)];
  if (isAdmin(actor)) return eb.and(alive);
  return eb.and([
    ...alive,
    eb.or([
      eb('agents.owner_id', '=', actor.id),
      // A literal, not a parameter: prepared queries built on this rule take only the actor as an argument.
      eb('agents.visibility', '=', sql.lit('public')),
      eb.exists(
        eb
          .selectFrom('agent_access')
          .select(eb.lit(1).as('granted'))
          .where('agent_access.user_id', '=', actor.id)
          .whereRef('agent_access.agent_id', '=', 'agents.id'),
      ),
    ]),
  ]);
}
