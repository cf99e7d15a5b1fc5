import Database from 'better-sqlite3';
import { Kysely, sql, type CompiledQuery } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../core/clock.js';
import type { DatabaseSchema } from '../sql/database-schema.js';
import { preparedQuery } from '../sql/prepared-query.js';
import type { DirectQueryRunner, SqlContext } from '../sql/sql-context.js';
import { sqliteSqlDialect } from '../sql/sql-dialect.js';
import { withStatementCache } from './cached-statements.js';
import { createDirectQueryRunner } from './direct-query-runner.js';
import { ConnectionGate } from './connection-gate.js';
import { FifoSqliteDialect } from './fifo-sqlite-dialect.js';

const insertUser = preparedQuery((db, args: { id: string }) =>
  db.insertInto('users').values({ id: args.id, name: args.id, role: sql.lit('member') } as never),
);
const userIds = preparedQuery((db) => db.selectFrom('users').select('id').orderBy('id'));

describe('createDirectQueryRunner', () => {
  const open: Kysely<DatabaseSchema>[] = [];
  afterEach(async () => {
    for (const db of open.splice(0)) await db.destroy();
  });

  async function context(): Promise<{ ctx: SqlContext; gate: ConnectionGate; direct: () => number }> {
    const cached = withStatementCache(new Database(':memory:'));
    const gate = new ConnectionGate();
    const db = new Kysely<DatabaseSchema>({
      dialect: new FifoSqliteDialect({ database: cached }, gate, 5_000),
    });
    open.push(db);
    await sql`CREATE TABLE users (id TEXT PRIMARY KEY, name TEXT, role TEXT)`.execute(db);
    const runner = createDirectQueryRunner(cached, gate);
    let directRuns = 0;
    const counting: DirectQueryRunner = {
      run<R>(compiled: CompiledQuery, parameters: readonly unknown[], inTransaction: boolean) {
        const result = runner.run<R>(compiled, parameters, inTransaction);
        if (result !== undefined) directRuns += 1;
        return result;
      },
    };
    const ctx: SqlContext = {
      db,
      dialect: sqliteSqlDialect,
      clock: systemClock,
      inTransaction: false,
      direct: counting,
    };
    return { ctx, gate, direct: () => directRuns };
  }

  it('runs a prepared query at once when nobody holds the connection, with the same results as Kysely', async () => {
    const { ctx, gate, direct } = await context();
    await insertUser(ctx, { id: 'u2' });
    await insertUser(ctx, { id: 'u1' });
    expect((await userIds(ctx, {})).rows).toEqual([{ id: 'u1' }, { id: 'u2' }]);
    expect(direct()).toBe(3);
    expect(gate.pending).toBe(0);
  });

  it('never puts a statement into another caller’s open transaction, and never overtakes it', async () => {
    const { ctx, gate, direct } = await context();
    let inside!: () => void;
    const held = new Promise<void>((resolve) => (inside = resolve));
    let finish!: () => void;
    const finishing = new Promise<void>((resolve) => (finish = resolve));
    const transaction = ctx.db
      .transaction()
      .execute(async (trx) => {
        const txCtx: SqlContext = { ...ctx, db: trx, inTransaction: true };
        await insertUser(txCtx, { id: 'in-tx' });
        inside();
        await finishing;
        throw new Error('roll back');
      })
      .catch((error: unknown) => error);
    await held;
    expect(gate.pending).toBeGreaterThan(0);
    // Declined while the transaction holds the connection: it queues behind it instead.
    const outside = insertUser(ctx, { id: 'outside' });
    const seen = userIds(ctx, {});
    finish();
    expect(await transaction).toBeInstanceOf(Error);
    await outside;
    expect((await seen).rows).toEqual([{ id: 'outside' }]);
    // The statement inside the transaction ran directly (it holds the connection); the two outside queued.
    expect(direct()).toBe(1);
  });
});
