import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startCountingMcpServer, type CountingMcpServer } from '../helpers/mcp/counting-mcp-server.js';
import { scaleOutUrls, useScaleOutCluster } from '../helpers/scale-out-cluster.js';
import { START_TIMEOUT_MS } from '../helpers/server-process.js';
import {
  createFaultAgent,
  expectFaultsSurvived,
  faultModel,
  faultRound,
  type FaultTarget,
} from '../helpers/tool-effect-faults.js';

/*
 * The kill -9 rounds of tool-effects-embedded-kill on the scale-out cluster (one API process, two workers,
 * PostgreSQL and Redis): both workers are killed at once with every run at its point, and a new worker takes
 * the runs over when their leases expire (docs/effects-and-forks.md#the-journal). The test's write lock is a
 * PostgreSQL table lock on the thread's messages. Gated on TROUPE_TEST_DATABASE_URL and TROUPE_TEST_REDIS_URL.
 */
const urls = scaleOutUrls();

if (urls) {
  // The counting MCP server listens on loopback, which the egress policy refuses to agents of members.
  process.env.TROUPE_EGRESS_ALLOW = '127.0.0.1';
  const cluster = useScaleOutCluster(urls);
  const model = faultModel();
  let mcp: CountingMcpServer;

  const target: FaultTarget = {
    api: (pathname, init) => cluster.api(pathname, init),
    lockWrites: async () => {
      const client = new pg.Client({ connectionString: cluster.databaseUrl });
      await client.connect();
      await client.query('BEGIN');
      // EXCLUSIVE blocks every write of the table and no read: the API still answers.
      await client.query('LOCK TABLE thread_messages IN EXCLUSIVE MODE');
      return async () => {
        await client.query('ROLLBACK');
        await client.end();
      };
    },
    kill: async () => {
      await Promise.all(cluster.workers.map((worker) => worker.killHard()));
    },
    recover: async () => {
      await cluster.addWorker('worker-after-kill');
    },
  };

  beforeAll(async () => {
    mcp = await startCountingMcpServer();
    cluster.answer = (_role, _turn, request) => model.answer(request);
    await createFaultAgent(target, mcp.url);
  }, START_TIMEOUT_MS);

  afterAll(async () => {
    await mcp?.close();
  });

  describe('tool effects under kill -9 of the scale-out workers', () => {
    it(
      'repeats no external effect, loses no result and leaves every conversation usable, at every point and class',
      async () => {
        expectFaultsSurvived(await faultRound(target, mcp, model));
      },
      3 * START_TIMEOUT_MS,
    );
  });
}
