import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect, type CompiledQuery, type QueryResult } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseSchema } from '../sql/database-schema.js';
import { postgresSqlDialect } from '../sql/sql-dialect.js';
import { SqlRunRepository } from '../sql/sql-run-repository.js';
import type { SqlContext } from '../sql/sql-context.js';
import { createPostgresStorage } from './create-postgres-storage.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';

const SKIP_REASON =
  'PostgreSQL walk plans: skipped because TROUPE_TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5433/postgres)';

/*
 * The walks over `runs` (lineage, active runs below a run or a turn) read one key at a time whatever the
 * statistics say (docs/scale-out.md, "Plans that do not depend on statistics"): their generic plans are read
 * here on a migrated schema PostgreSQL has never analysed (a new deployment), the state in which a join was
 * planned as a hash of the whole table, kept by a prepared statement as the table grew.
 */
const serverUrl = serviceUrlOrSkip('TROUPE_TEST_DATABASE_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  describe('runs walks on PostgreSQL: plans independent of statistics', () => {
    const schema = `troupe_test_${randomBytes(6).toString('hex')}`;
    let client: pg.Client | undefined;
    const sent: CompiledQuery[] = [];
    let runs: SqlRunRepository;

    beforeAll(async () => {
      const storage = await createPostgresStorage({ connectionString: url, schema, poolSize: 2 });
      await storage.close();
      client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
      await client.connect();
      await client.query('SET plan_cache_mode = force_generic_plan');
      // Compiles for PostgreSQL without connecting: the statements are only captured, then explained above.
      const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool: new pg.Pool() }) });
      db.executeQuery = <R>(query: CompiledQuery<R>): Promise<QueryResult<R>> => {
        sent.push(query);
        return Promise.resolve({ rows: [] });
      };
      const ctx: SqlContext = {
        db,
        dialect: postgresSqlDialect,
        clock: { now: () => new Date() },
        inTransaction: false,
      };
      runs = new SqlRunRepository(ctx);
    });
    afterAll(async () => {
      if (client === undefined) return;
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    });

    /** The generic plan of the one statement `work` sends. */
    async function planOf(work: () => Promise<unknown>): Promise<string> {
      sent.length = 0;
      await work();
      expect(sent).toHaveLength(1);
      const [query] = sent as [CompiledQuery];
      const name = `walk_${randomBytes(4).toString('hex')}`;
      const db = client!;
      await db.query(`PREPARE ${name} AS ${query.sql}`);
      // EXECUTE is a utility statement: it takes its arguments as literals, not bound parameters (every
      // argument of these walks is a string).
      const args = query.parameters
        .map((value) => (typeof value === 'string' ? db.escapeLiteral(value) : 'NULL'))
        .join(', ');
      const { rows } = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN EXECUTE ${name}(${args})`);
      await db.query(`DEALLOCATE ${name}`);
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    }

    /** Every read of `runs` in the plan is an index probe: no scan of the table, no hash of it. */
    function expectProbesOnly(plan: string): void {
      expect(plan).not.toMatch(/Seq Scan on runs/);
      expect(plan).not.toMatch(/Hash Join/);
      expect(plan).toMatch(/Index (Only )?Scan/);
    }

    it("a run's lineage: one primary-key probe per run above it", async () => {
      const plan = await planOf(() => runs.lineageStatuses('run-x'));
      expectProbesOnly(plan);
      expect(plan).toContain('runs_pkey');
    });

    it('the active runs below a run: runs_created_by_idx at every level, rows by key', async () => {
      const plan = await planOf(() => runs.listActiveDescendants('run-x'));
      expectProbesOnly(plan);
      expect(plan.match(/runs_created_by_idx/g)?.length).toBeGreaterThanOrEqual(2);
    });

    it("what a turn's end closes: the previous run by runs_conversation_idx, then probes", async () => {
      const turn = { id: 'run-x', conversation_id: 'cnv-x', created_at: '2030-01-01T00:00:00.000Z' };
      const plan = await planOf(() => runs.listActiveBelowTurn(turn, { own: true }));
      expectProbesOnly(plan);
      expect(plan).toContain('runs_conversation_idx');
    });

    it("a child start's lineage walk probes the primary key", async () => {
      const plan = await planOf(() =>
        runs.getWithActiveChildren('run-x', 'usr-x', { agentId: 'agt-x', childThreadId: 'thr-x' }),
      );
      const walk = plan.slice(plan.indexOf('Recursive Union'), plan.indexOf('CTE Scan'));
      expect(walk).toContain('runs_pkey');
      expect(walk).not.toMatch(/Seq Scan on runs|Hash Join/);
    });
  });
}
