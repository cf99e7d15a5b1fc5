import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startCountingMcpServer, type CountingMcpServer } from '../helpers/mcp/counting-mcp-server.js';
import type { FakeModelServer } from '../helpers/models/fake-model-server.js';
import { startFakeOpenAiServer } from '../helpers/models/fake-openai-server.js';
import { ServerProcess, START_TIMEOUT_MS } from '../helpers/server-process.js';
import {
  createFaultAgent,
  expectFaultsSurvived,
  faultModel,
  faultRound,
  type FaultTarget,
} from '../helpers/tool-effect-faults.js';

/*
 * `kill -9` of an embedded server (SQLite file, in-process queue) at four points of a tool call, for each
 * effect class, then a restart on the same data dir (docs/effects-and-forks.md#the-journal): no external call
 * runs twice, no call is left without a result, every conversation takes a next message. The points are
 * reached by the test doubles; "before the result was committed" and "after the model asked" hold SQLite's
 * write lock from the test, so nothing the worker does after that point is committed.
 */
const LEASE_MS = 1_500;
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-effects-kill-'));
const servers: ServerProcess[] = [];
let mcp: CountingMcpServer;
let modelServer: FakeModelServer;
const model = faultModel();
let current: { server: ServerProcess; baseUrl: string; token: string };

async function serve(name: string): Promise<{ server: ServerProcess; baseUrl: string; token: string }> {
  const server = new ServerProcess(name, ['--port', '0'], {
    ...process.env,
    TROUPE_DATA_DIR: dataDir,
    TROUPE_LEASE_MS: String(LEASE_MS),
    TROUPE_HOST: '127.0.0.1',
    TROUPE_DATABASE_URL: '',
    TROUPE_REDIS_URL: '',
    TROUPE_EGRESS_ALLOW: '127.0.0.1',
    OPENAI_BASE_URL: modelServer.baseURL,
    OPENAI_API_KEY: 'sk-test',
  });
  servers.push(server);
  const [, baseUrl = ''] = await server.waitFor(/Troupe is serving on (http:\/\/\S+)/);
  const [, token = ''] = await server.waitFor(/Token for "demo"[^:]*: (trp_\S+)/);
  return { server, baseUrl, token };
}

const target: FaultTarget = {
  api: (pathname, init = {}) =>
    fetch(`${current.baseUrl}${pathname}`, {
      ...init,
      signal: AbortSignal.timeout(120_000),
      headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${current.token}` },
    }),
  lockWrites: () => {
    const db = new Database(path.join(dataDir, 'troupe.db'), { timeout: 10_000 });
    db.exec('BEGIN IMMEDIATE');
    return Promise.resolve(() => {
      db.exec('ROLLBACK');
      db.close();
      return Promise.resolve();
    });
  },
  kill: () => current.server.killHard(),
  recover: async () => {
    current = await serve('after-kill');
  },
};

beforeAll(async () => {
  mcp = await startCountingMcpServer();
  modelServer = await startFakeOpenAiServer({ responses: (request) => model.answer(request) });
  current = await serve('first');
  await createFaultAgent(target, mcp.url);
}, START_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await mcp?.close();
  await modelServer?.close();
  rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

describe('tool effects under kill -9 of an embedded server', () => {
  it(
    'repeats no external effect, loses no result and leaves every conversation usable, at every point and class',
    async () => {
      expectFaultsSurvived(await faultRound(target, mcp, model));
    },
    3 * START_TIMEOUT_MS,
  );
});
