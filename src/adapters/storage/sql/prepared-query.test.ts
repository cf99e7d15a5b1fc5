import Database from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../core/clock.js';
import type { DatabaseSchema } from './database-schema.js';
import { preparedQuery, preparedQueryFamily } from './prepared-query.js';
import type { SqlContext } from './sql-context.js';
import { sqliteSqlDialect } from './sql-dialect.js';

describe('preparedQuery', () => {
  const open: Kysely<DatabaseSchema>[] = [];
  afterEach(async () => {
    for (const db of open.splice(0)) await db.destroy();
  });

  async function context(): Promise<SqlContext> {
    const db = new Kysely<DatabaseSchema>({
      dialect: new SqliteDialect({ database: new Database(':memory:') }),
    });
    open.push(db);
    await sql`CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT, role TEXT)`.execute(db);
    await sql`INSERT INTO users VALUES ('u1', 'ann', 'admin'), ('u2', 'bob', 'member')`.execute(db);
    return { db, dialect: sqliteSqlDialect, clock: systemClock, inTransaction: false };
  }

  it('compiles once and runs with each call’s arguments in their places', async () => {
    const ctx = await context();
    let builds = 0;
    const byRoleAndName = preparedQuery((db, args: { role: 'admin' | 'member'; name: string }) => {
      builds += 1;
      return db
        .selectFrom('users')
        .select(['id'])
        .where('name', '=', args.name)
        .where('role', '=', args.role)
        .where('id', '!=', sql.lit('none'));
    });
    expect((await byRoleAndName(ctx, { role: 'admin', name: 'ann' })).rows).toEqual([{ id: 'u1' }]);
    expect((await byRoleAndName(ctx, { role: 'member', name: 'bob' })).rows).toEqual([{ id: 'u2' }]);
    expect((await byRoleAndName(ctx, { role: 'member', name: 'ann' })).rows).toEqual([]);
    expect(builds).toBe(1);
  });

  it('refuses a value that is not an argument, which the first compile would freeze', async () => {
    const ctx = await context();
    const captured = 'ann';
    const frozen = preparedQuery((db, args: { role: 'admin' | 'member' }) =>
      db.selectFrom('users').select(['id']).where('role', '=', args.role).where('name', '=', captured),
    );
    await expect(frozen(ctx, { role: 'admin' })).rejects.toThrow(/not one of its arguments/);
  });

  it('refuses an argument inlined into the SQL text', async () => {
    const ctx = await context();
    const inlined = preparedQuery((db, args: { name: string }) =>
      db.selectFrom('users').select(['id']).where('name', '=', sql.lit(args.name)),
    );
    await expect(inlined(ctx, { name: 'ann' })).rejects.toThrow(/inlines an argument/);
  });

  it('keeps one query per shape key, and compiles a shape it does not keep on every call', async () => {
    const ctx = await context();
    const builds: number[] = [];
    const firstIds = preparedQueryFamily({
      key: (limit: number) => String(limit),
      keep: (limit) => limit <= 1,
      build: (limit) => (db, args: { role: 'admin' | 'member' }) => {
        builds.push(limit);
        return db
          .selectFrom('users')
          .select(['id'])
          .where('role', '!=', args.role)
          .orderBy('id')
          .limit(sql.lit(limit));
      },
    });
    expect((await firstIds(1)(ctx, { role: 'admin' })).rows).toEqual([{ id: 'u2' }]);
    expect((await firstIds(1)(ctx, { role: 'member' })).rows).toEqual([{ id: 'u1' }]);
    expect((await firstIds(2)(ctx, { role: 'nobody' as 'admin' })).rows).toEqual([
      { id: 'u1' },
      { id: 'u2' },
    ]);
    expect((await firstIds(2)(ctx, { role: 'admin' })).rows).toEqual([{ id: 'u2' }]);
    expect(builds).toEqual([1, 2, 2]);
  });
});
