import type { Selectable } from 'kysely';
import { TroupeError } from '../../../core/errors.js';
import { newId } from '../../../core/ids.js';
import type { DelegationPolicy, User } from '../../../core/records/user.js';
import type { NewUser, UserRepository } from '../../../core/ports/storage.js';
import type { UsersTable } from './database-schema.js';
import { fromJson, nowIso, toJson, translateUniqueViolation } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { preparedQuery } from './prepared-query.js';

const selectUser = preparedQuery((db, args: { id: string }) =>
  db.selectFrom('users').selectAll().where('id', '=', args.id),
);

export function userFromRow(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    name: row.name,
    role: row.role,
    delegation_policy: row.delegation_policy,
    delegation_whitelist: fromJson<string[]>(row.delegation_whitelist),
    created_at: row.created_at,
  };
}

export class SqlUserRepository implements UserRepository {
  constructor(private readonly ctx: SqlContext) {}

  async create(user: NewUser): Promise<User> {
    const row: UsersTable = {
      id: newId('usr'),
      name: user.name,
      role: user.role,
      delegation_policy: 'none',
      delegation_whitelist: toJson([]),
      created_at: nowIso(this.ctx),
    };
    try {
      await this.ctx.db.insertInto('users').values(row).execute();
    } catch (error) {
      translateUniqueViolation(this.ctx, error, {
        users_name_uq: () => new TroupeError('user_exists', `A user named ${user.name} already exists`),
      });
    }
    return userFromRow(row);
  }

  async get(id: string): Promise<User | undefined> {
    const row = (await selectUser(this.ctx, { id })).rows[0];
    return row && userFromRow(row);
  }

  async getByName(name: string): Promise<User | undefined> {
    const row = await this.ctx.db.selectFrom('users').selectAll().where('name', '=', name).executeTakeFirst();
    return row && userFromRow(row);
  }

  async list(): Promise<User[]> {
    const rows = await this.ctx.db
      .selectFrom('users')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(userFromRow);
  }

  async setDelegationPolicy(id: string, policy: DelegationPolicy, whitelist: string[]): Promise<User> {
    const row = await this.ctx.db
      .updateTable('users')
      .set({ delegation_policy: policy, delegation_whitelist: toJson(whitelist) })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    if (row === undefined) throw new TroupeError('user_not_found', `User ${id} not found`);
    return userFromRow(row);
  }
}
