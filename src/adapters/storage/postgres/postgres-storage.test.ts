import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../../core/clock.js';
import { MIGRATIONS } from '../sql/migrations.js';
import { postgresSqlDialect } from '../sql/sql-dialect.js';
import { describeStorageContract } from '../../../../test/contracts/storage/storage.contract.js';
import { createPostgresStorage, startupOptions } from './create-postgres-storage.js';
import { seedOneRun } from '../../../../test/contracts/storage/seed-one-run.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';

/*
 * Runs against a real PostgreSQL server when TROUPE_TEST_DATABASE_URL is set (`.ci/run` starts a throwaway
 * cluster and sets it). Every test gets its own fresh schema, dropped afterwards, so tests never see each
 * other's rows and the database needs no cleanup. Without the variable the suite is skipped, and says why.
 */
const SKIP_REASON =
  'PostgreSQL storage: skipped because TROUPE_TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5433/postgres; .ci/run sets it)';

function freshSchemaName(): string {
  return `troupe_test_${randomBytes(6).toString('hex')}`;
}

async function admin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function dropSchema(url: string, schema: string): Promise<void> {
  return admin(url, async (client) => {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  });
}

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_DATABASE_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  describeStorageContract('postgres (schema per test)', async () => {
    const schema = freshSchemaName();
    const storage = await createPostgresStorage({ connectionString: url, schema, poolSize: 4 });
    return {
      storage,
      async close() {
        await storage.close();
        await dropSchema(url, schema);
      },
    };
  });

  describe('PostgreSQL storage specifics', () => {
    async function withSchema(work: (schema: string) => Promise<void>): Promise<void> {
      const schema = freshSchemaName();
      try {
        await work(schema);
      } finally {
        await dropSchema(url, schema);
      }
    }

    it('creates the schema, keeps its tables there, and migrations are idempotent', async () => {
      await withSchema(async (schema) => {
        const first = await createPostgresStorage({ connectionString: url, schema });
        const alice = await first.users.create({ name: 'alice', role: 'member' });
        await first.close();
        await first.close();

        const second = await createPostgresStorage({ connectionString: url, schema });
        try {
          expect(await second.users.get(alice.id)).toEqual(alice);
        } finally {
          await second.close();
        }
        const { tables, applied } = await admin(url, async (client) => ({
          tables: (
            await client.query<{ table_name: string }>(
              'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
              [schema],
            )
          ).rows.map((row) => row.table_name),
          applied: (
            await client.query<{ name: string }>(
              `SELECT name FROM "${schema}".troupe_migration ORDER BY name`,
            )
          ).rows.map((row) => row.name),
        }));
        expect(tables).toEqual(expect.arrayContaining(['runs', 'run_events', 'users', 'troupe_migration']));
        expect(applied).toEqual(Object.keys(MIGRATIONS).sort());
      });
    });

    it('keeps two schemas of one database apart, each fully migrated', async () => {
      await withSchema(async (one) => {
        await withSchema(async (two) => {
          // Without migrationTableSchema the second would find the first's bookkeeping and skip migrating.
          const first = await createPostgresStorage({ connectionString: url, schema: one });
          const second = await createPostgresStorage({ connectionString: url, schema: two });
          try {
            await first.users.create({ name: 'alice', role: 'member' });
            await second.users.create({ name: 'alice', role: 'admin' });
            expect((await first.users.list()).map((user) => user.role)).toEqual(['member']);
            expect((await second.users.list()).map((user) => user.role)).toEqual(['admin']);
          } finally {
            await first.close();
            await second.close();
          }
        });
      });
    });

    it('lets several processes open and migrate the same fresh schema at once', async () => {
      await withSchema(async (schema) => {
        const opened = await Promise.all(
          Array.from({ length: 4 }, () =>
            createPostgresStorage({ connectionString: url, schema, poolSize: 2 }),
          ),
        );
        try {
          const [first, ...others] = opened;
          const user = await first?.users.create({ name: 'alice', role: 'member' });
          for (const storage of others) expect(await storage.users.get(user?.id ?? '')).toEqual(user);
        } finally {
          await Promise.all(opened.map((storage) => storage.close()));
        }
      });
    });

    it('maps constraint violations to the schema key names', async () => {
      await withSchema(async (schema) => {
        const storage = await createPostgresStorage({ connectionString: url, schema });
        try {
          await storage.users.create({ name: 'alice', role: 'member' });
          await expect(storage.users.create({ name: 'alice', role: 'member' })).rejects.toMatchObject({
            code: 'user_exists',
          });
          await expect(
            storage.projects.create({ user_id: 'usr_missing', name: 'p', workdir: '/tmp/p' }),
          ).rejects.toMatchObject({ code: '23503' });
        } finally {
          await storage.close();
        }
      });
    });

    it('stamps records with the injected clock', async () => {
      await withSchema(async (schema) => {
        const clock: Clock = { now: () => new Date('2030-01-01T00:00:00.000Z') };
        const storage = await createPostgresStorage({ connectionString: url, schema, clock });
        try {
          expect((await storage.users.create({ name: 'alice', role: 'member' })).created_at).toBe(
            '2030-01-01T00:00:00.000Z',
          );
        } finally {
          await storage.close();
        }
      });
    });

    it('numbers on from rows a counter has not seen: no counter row, or one behind its table', async () => {
      await withSchema(async (schema) => {
        const storage = await createPostgresStorage({ connectionString: url, schema });
        try {
          const run = await seedOneRun(storage);
          const append = (i: number) =>
            storage.events.append({ run_id: run.id, type: 'step', payload: { i } });
          await append(1);
          await append(2);
          // Rows written before the counters existed (or by an older process): the counter is dropped, or reset.
          await admin(url, (client) => client.query(`DELETE FROM "${schema}".sequence_counters`));
          expect((await append(3)).seq).toBe(3);
          await admin(url, (client) =>
            client.query(`UPDATE "${schema}".sequence_counters SET last_value = 1`),
          );
          const [four, five] = await Promise.all([append(4), append(5)]);
          expect([four?.seq, five?.seq].sort()).toEqual([4, 5]);
          expect((await storage.events.list(run.id, 0, 10)).map((event) => event.seq)).toEqual([
            1, 2, 3, 4, 5,
          ]);
          const counter = await admin(url, (client) =>
            client.query<{ last_value: string }>(`SELECT last_value FROM "${schema}".sequence_counters`),
          );
          expect(counter.rows.map((row) => Number(row.last_value))).toEqual([5]);
        } finally {
          await storage.close();
        }
      });
    });

    it("starts every connection in the storage's schema and without JIT, with or without a schema", async () => {
      // The server applies what the pool sends at startup: JIT would compile a statement whose estimate passes
      // jit_above_cost at each execution, which a generic plan on an unanalysed, grown table does.
      for (const schema of [`troupe_test_${randomBytes(6).toString('hex')}`, undefined]) {
        const client = new pg.Client({ connectionString: url, options: startupOptions(schema) });
        await client.connect();
        try {
          await client.query('SET jit_above_cost = 0');
          const { rows } = await client.query<{ jit: string; search_path: string }>(
            "SELECT current_setting('jit') AS jit, current_setting('search_path') AS search_path",
          );
          expect(rows[0]?.jit).toBe('off');
          if (schema !== undefined) expect(rows[0]?.search_path).toBe(schema);
          const plan = await client.query<{ 'QUERY PLAN': string }>(
            'EXPLAIN (ANALYZE, SUMMARY ON) SELECT sum(g) FROM generate_series(1, 1000) g',
          );
          expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).not.toContain('JIT');
        } finally {
          await client.end();
        }
      }
    });

    it('refuses a schema name that is not a plain identifier, before connecting', async () => {
      await expect(
        createPostgresStorage({ connectionString: url, schema: 'Robert"; DROP TABLE users; --' }),
      ).rejects.toMatchObject({ code: 'config_invalid' });
      await expect(createPostgresStorage({ connectionString: url, poolSize: 1 })).rejects.toMatchObject({
        code: 'config_invalid',
      });
    });

    it('fails with config_invalid and no password in the message when the server is unreachable', async () => {
      const error: unknown = await createPostgresStorage({
        connectionString: 'postgres://troupe:s3cret@127.0.0.1:1/troupe',
      }).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: 'config_invalid' });
      expect(String((error as Error).message)).not.toContain('s3cret');
    });
  });
}

describe('postgresSqlDialect.uniqueViolation', () => {
  it('names the key from SQLSTATE 23505 and the constraint field', () => {
    const violation = (constraint: string) =>
      Object.assign(new Error('duplicate key'), { code: '23505', constraint });
    expect(postgresSqlDialect.uniqueViolation(violation('runs_active_thread_uq'))).toBe(
      'runs_active_thread_uq',
    );
    expect(postgresSqlDialect.uniqueViolation(violation('not_ours'))).toBeUndefined();
    expect(
      postgresSqlDialect.uniqueViolation(Object.assign(new Error('fk'), { code: '23503' })),
    ).toBeUndefined();
  });
});
