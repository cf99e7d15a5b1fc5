import { sql } from 'kysely';
import type { GrantableKind, GrantRecords, GrantRepository } from '../../../core/ports/grant-repository.js';
import type { AccessSource } from '../../../core/records/agent.js';
import { nowIso, toNumber } from './sql-context.js';
import type { SqlContext } from './sql-context.js';

/** Where each kind's grants are stored: the table, the resource column and whether a source is kept. */
const GRANT_TABLES = {
  skill: { table: 'skill_access', resource: 'skill_id', keepsSource: false },
  knowledge_source: { table: 'knowledge_access', resource: 'source_id', keepsSource: true },
} as const satisfies Record<GrantableKind, { table: string; resource: string; keepsSource: boolean }>;

/**
 * One repository over both grant tables (migrations `skills` and `0006_knowledge`): the tables differ only
 * in their names, so the statements are written once with the names as identifiers.
 */
export class SqlGrantRepository implements GrantRepository {
  constructor(private readonly ctx: SqlContext) {}

  async grant<K extends GrantableKind>(
    kind: K,
    userId: string,
    resourceId: string,
    source: AccessSource,
  ): Promise<GrantRecords[K]> {
    const { table, resource, keepsSource } = GRANT_TABLES[kind];
    const columns = keepsSource
      ? sql`(user_id, ${sql.ref(resource)}, source, created_at)`
      : sql`(user_id, ${sql.ref(resource)}, created_at)`;
    const values = keepsSource
      ? sql`(${userId}, ${resourceId}, ${source}, ${nowIso(this.ctx)})`
      : sql`(${userId}, ${resourceId}, ${nowIso(this.ctx)})`;
    // The primary key decides idempotency: a second grant is ignored, so the first source and time stay.
    await sql`insert into ${sql.table(table)} ${columns} values ${values}
      on conflict (user_id, ${sql.ref(resource)}) do nothing`.execute(this.ctx.db);
    const { rows } = await sql<GrantRecords[K]>`select * from ${sql.table(table)}
      where user_id = ${userId} and ${sql.ref(resource)} = ${resourceId}`.execute(this.ctx.db);
    const [row] = rows;
    if (row === undefined) throw new Error(`The ${kind} grant of ${userId} on ${resourceId} was not written`);
    return row;
  }

  async revoke(kind: GrantableKind, userId: string, resourceId: string): Promise<boolean> {
    const { table, resource } = GRANT_TABLES[kind];
    const result = await sql`delete from ${sql.table(table)}
      where user_id = ${userId} and ${sql.ref(resource)} = ${resourceId}`.execute(this.ctx.db);
    return toNumber(result.numAffectedRows ?? 0) > 0;
  }

  async has(kind: GrantableKind, userId: string, resourceId: string): Promise<boolean> {
    const { table, resource } = GRANT_TABLES[kind];
    const { rows } = await sql`select 1 as granted from ${sql.table(table)}
      where user_id = ${userId} and ${sql.ref(resource)} = ${resourceId}`.execute(this.ctx.db);
    return rows.length > 0;
  }

  async list<K extends GrantableKind>(kind: K, resourceId: string): Promise<GrantRecords[K][]> {
    const { table, resource } = GRANT_TABLES[kind];
    const { rows } = await sql<GrantRecords[K]>`select * from ${sql.table(table)}
      where ${sql.ref(resource)} = ${resourceId} order by created_at, user_id`.execute(this.ctx.db);
    return rows;
  }
}
