import type { Selectable } from 'kysely';
import type { AccessSource, AgentAccess } from '../../../core/records/agent.js';
import type { AccessRepository } from '../../../core/ports/storage.js';
import type { AgentAccessTable } from './database-schema.js';
import { nowIso, toNumber } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { preparedQuery } from './prepared-query.js';

const selectGrant = preparedQuery((db, args: { userId: string; agentId: string }) =>
  db
    .selectFrom('agent_access')
    .select('source')
    .where('user_id', '=', args.userId)
    .where('agent_id', '=', args.agentId),
);

export function accessFromRow(row: Selectable<AgentAccessTable>): AgentAccess {
  return { user_id: row.user_id, agent_id: row.agent_id, source: row.source, created_at: row.created_at };
}

export class SqlAccessRepository implements AccessRepository {
  constructor(private readonly ctx: SqlContext) {}

  async grant(userId: string, agentId: string, source: AccessSource): Promise<AgentAccess> {
    // The primary key decides idempotency: a second grant is ignored, so the first source and time stay.
    await this.ctx.db
      .insertInto('agent_access')
      .values({ user_id: userId, agent_id: agentId, source, created_at: nowIso(this.ctx) })
      .onConflict((oc) => oc.columns(['user_id', 'agent_id']).doNothing())
      .execute();
    const row = await this.ctx.db
      .selectFrom('agent_access')
      .selectAll()
      .where('user_id', '=', userId)
      .where('agent_id', '=', agentId)
      .executeTakeFirstOrThrow();
    return accessFromRow(row);
  }

  async revoke(userId: string, agentId: string): Promise<boolean> {
    const result = await this.ctx.db
      .deleteFrom('agent_access')
      .where('user_id', '=', userId)
      .where('agent_id', '=', agentId)
      .executeTakeFirst();
    return toNumber(result.numDeletedRows) > 0;
  }

  async has(userId: string, agentId: string): Promise<boolean> {
    const { rows } = await selectGrant(this.ctx, { userId, agentId });
    return rows.length > 0;
  }

  async listForAgent(agentId: string): Promise<AgentAccess[]> {
    const rows = await this.ctx.db
      .selectFrom('agent_access')
      .selectAll()
      .where('agent_id', '=', agentId)
      .orderBy('created_at')
      .orderBy('user_id')
      .execute();
    return rows.map(accessFromRow);
  }
}
