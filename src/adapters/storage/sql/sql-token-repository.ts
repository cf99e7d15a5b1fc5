import type { Selectable } from 'kysely';
import { newId } from '../../../core/ids.js';
import type { ApiToken } from '../../../core/records/api-token.js';
import type { NewApiToken, TokenRepository } from '../../../core/ports/storage.js';
import type { ApiTokensTable } from './database-schema.js';
import { nowIso, toNumber } from './sql-context.js';
import type { SqlContext } from './sql-context.js';

export function tokenFromRow(row: Selectable<ApiTokensTable>): ApiToken {
  return {
    id: row.id,
    user_id: row.user_id,
    name: row.name,
    prefix: row.prefix,
    token_hash: row.token_hash,
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    revoked_at: row.revoked_at,
  };
}

export class SqlTokenRepository implements TokenRepository {
  constructor(private readonly ctx: SqlContext) {}

  async create(token: NewApiToken): Promise<ApiToken> {
    const row: ApiTokensTable = {
      id: newId('tok'),
      user_id: token.user_id,
      name: token.name,
      prefix: token.prefix,
      token_hash: token.token_hash,
      created_at: nowIso(this.ctx),
      last_used_at: null,
      revoked_at: null,
    };
    await this.ctx.db.insertInto('api_tokens').values(row).execute();
    return tokenFromRow(row);
  }

  async findActiveByHash(tokenHash: string): Promise<ApiToken | undefined> {
    const row = await this.ctx.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return row && tokenFromRow(row);
  }

  async listForUser(userId: string): Promise<ApiToken[]> {
    const rows = await this.ctx.db
      .selectFrom('api_tokens')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(tokenFromRow);
  }

  async revoke(userId: string, tokenId: string): Promise<boolean> {
    const result = await this.ctx.db
      .updateTable('api_tokens')
      .set({ revoked_at: nowIso(this.ctx) })
      .where('id', '=', tokenId)
      .where('user_id', '=', userId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return toNumber(result.numUpdatedRows) > 0;
  }

  async revokeByName(userId: string, name: string): Promise<number> {
    const result = await this.ctx.db
      .updateTable('api_tokens')
      .set({ revoked_at: nowIso(this.ctx) })
      .where('user_id', '=', userId)
      .where('name', '=', name)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return toNumber(result.numUpdatedRows);
  }

  async touch(tokenId: string, at: string): Promise<void> {
    await this.ctx.db.updateTable('api_tokens').set({ last_used_at: at }).where('id', '=', tokenId).execute();
  }
}
