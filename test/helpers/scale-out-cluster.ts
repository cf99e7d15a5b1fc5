import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/records/run-event.js';
import type { Run } from '../../src/core/records/run.js';
import type { FakeModelResponse, FakeModelServer, RecordedRequest } from './models/fake-model-server.js';
import { startFakeOpenAiServer } from './models/fake-openai-server.js';
import { roleOf, turnOf } from './role-model.js';
import { ServerProcess, START_TIMEOUT_MS } from './server-process.js';
import { readSse, type SseFrame } from './start-test-server.js';

/*
 * Scale-out with real processes: one `--role api` process and two `--role worker` processes sharing a fresh
 * PostgreSQL database and Redis, as `troupe serve` runs them in production. Gated on TROUPE_TEST_DATABASE_URL
 * and TROUPE_TEST_REDIS_URL (`.ci/run` sets both). Every wait is bounded; every process is killed in afterAll.
 */
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const LEASE_MS = 2_000;
export const RUN_TIMEOUT_MS = 60_000;

export interface TreeNode {
  run: Run;
  children: TreeNode[];
}
export const flatten = (node: TreeNode): TreeNode[] => [node, ...node.children.flatMap(flatten)];
export const TERMINAL: readonly string[] = ['completed', 'failed', 'cancelled', 'interrupted'];

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

export async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The PostgreSQL and Redis URLs of the gated suites; when either is missing, registers a skipped suite that
 * says why (the default reporter shows only a skip count) and returns undefined.
 */
export function scaleOutUrls(): { databaseUrl: string; redisUrl: string } | undefined {
  const databaseUrl = process.env.TROUPE_TEST_DATABASE_URL;
  const redisUrl = process.env.TROUPE_TEST_REDIS_URL;
  if (databaseUrl && redisUrl) return { databaseUrl, redisUrl };
  const reason =
    'scale-out e2e: skipped because TROUPE_TEST_DATABASE_URL and TROUPE_TEST_REDIS_URL are not both set (.ci/run sets them)';
  console.warn(reason);
  describe.skip(reason, () => {
    it('needs PostgreSQL and Redis', () => undefined);
  });
  return undefined;
}

export interface ScaleOutUrls {
  databaseUrl: string;
  redisUrl: string;
}

/** How the fault suites run the cluster: their servers' URLs once started, a lease of their choosing. */
export interface ScaleOutClusterOptions {
  /** TROUPE_LEASE_MS of every process; default 2 s (recovery after a kill in seconds). */
  leaseMs?: number;
}

/**
 * A fresh database and Redis logical database, a fake OpenAI server (answering by `answer`, which a test may
 * replace), an API process and two workers: started before the file's tests, all stopped and dropped after.
 * `urls` may be read only when the servers are up (servers the suite starts itself).
 */
export function useScaleOutCluster(
  urls: ScaleOutUrls | (() => ScaleOutUrls),
  options: ScaleOutClusterOptions = {},
) {
  const serverUrls = typeof urls === 'function' ? urls : () => urls;
  const database = `troupe_e2e_${randomBytes(6).toString('hex')}`;
  // A Redis logical database of its own, so this suite's queue and streams never meet another test's.
  const redisDb = 1 + ((randomBytes(1)[0] ?? 0) % 15);
  const adminUrl = (): string => serverUrls().databaseUrl;
  const databaseUrl = (): string => withDatabase(adminUrl(), database);
  const redisUrl = (): string => {
    const parsed = new URL(serverUrls().redisUrl);
    parsed.pathname = `/${redisDb}`;
    return parsed.toString();
  };

  const processes: ServerProcess[] = [];
  /** The model of the stop-guarantee test: a fake OpenAI server in this process, which the workers call. */
  let model: FakeModelServer;
  let answer: (role: string, turn: number, request: RecordedRequest) => FakeModelResponse = () => ({
    text: 'ok',
  });
  let dataDir = '';
  let baseUrl = '';
  let token = '';
  let workers: ServerProcess[] = [];
  let processEnv: NodeJS.ProcessEnv = {};

  const api = (pathname: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${baseUrl}${pathname}`, {
      ...init,
      signal: init.signal ?? AbortSignal.timeout(RUN_TIMEOUT_MS),
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(init.headers as Record<string, string> | undefined),
      },
    });

  async function json<T>(response: Promise<Response>, status = 200): Promise<T> {
    const resolved = await response;
    const body = await resolved.text();
    if (resolved.status !== status)
      throw new Error(`expected HTTP ${status}, got ${resolved.status}: ${body}`);
    return JSON.parse(body) as T;
  }

  async function startRun(message: string, agentId = 'assistant'): Promise<Run> {
    const { conversation } = await json<{ conversation: { id: string } }>(
      api('/api/conversations', { method: 'POST', body: JSON.stringify({ agent_id: agentId }) }),
      201,
    );
    const { run } = await json<{ run: Run }>(
      api(`/api/conversations/${conversation.id}/messages`, {
        method: 'POST',
        body: JSON.stringify({ content: message }),
      }),
      202,
    );
    return run;
  }

  const getRun = async (runId: string): Promise<Run> =>
    (await json<{ run: Run }>(api(`/api/agent/runs/${runId}`))).run;

  /** The pid a worker id embeds (`wrk_{pid}_{hex}`). */
  const pidOf = (workerId: string | null): number | undefined => {
    const match = /^wrk_(\d+)_/.exec(workerId ?? '');
    return match?.[1] === undefined ? undefined : Number(match[1]);
  };

  /** Opens the run's SSE stream on the API process; resolves with every frame once the stream ends. */
  function stream(
    runId: string,
    onFrame?: (frame: SseFrame) => void,
  ): { frames: SseFrame[]; done: Promise<SseFrame[]> } {
    const frames: SseFrame[] = [];
    const done = api(`/api/agent/runs/${runId}/events`).then((response) => {
      if (response.status !== 200) throw new Error(`SSE for ${runId} answered ${response.status}`);
      return readSse(response, (frame) => {
        frames.push(frame);
        onFrame?.(frame);
      });
    });
    return { frames, done };
  }

  const eventOf = (frame: SseFrame): RunEvent => JSON.parse(frame.data) as RunEvent;

  function expectGapless(frames: SseFrame[]): void {
    expect(frames.map((frame) => Number(frame.id))).toEqual(frames.map((_, index) => index + 1));
    expect(frames.filter((frame) => frame.event === 'end')).toHaveLength(1);
    expect(frames.at(-1)?.event).toBe('end');
  }

  async function persistedSeqs(runIds: string[]): Promise<Map<string, number[]>> {
    const client = new pg.Client({ connectionString: databaseUrl() });
    await client.connect();
    try {
      const { rows } = await client.query<{ run_id: string; seq: number }>(
        'SELECT run_id, seq FROM run_events WHERE run_id = ANY($1) ORDER BY run_id, seq',
        [runIds],
      );
      const byRun = new Map<string, number[]>(runIds.map((id) => [id, []]));
      for (const row of rows) byRun.get(row.run_id)?.push(Number(row.seq));
      return byRun;
    } finally {
      await client.end();
    }
  }

  function failureReport(): string {
    return processes
      .map((server) => `--- ${server.name} (pid ${server.child.pid}) ---\n${server.output}`)
      .join('\n');
  }

  beforeAll(async () => {
    await adminQuery(adminUrl(), `CREATE DATABASE ${database}`);
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-scale-out-'));
    model = await startFakeOpenAiServer({
      responses: (request) => answer(roleOf(request), turnOf(request), request),
    });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'sk-test',
      TROUPE_MAX_CHILDREN_PER_RUN: '20',
      TROUPE_MAX_CHILDREN_PER_USER: '100',
      TROUPE_DATABASE_URL: databaseUrl(),
      TROUPE_REDIS_URL: redisUrl(),
      // Project workdirs are real files: every process of a deployment shares the data dir.
      TROUPE_DATA_DIR: dataDir,
      TROUPE_SCENARIO_DIR: path.join(REPO_ROOT, 'scenarios'),
      TROUPE_LEASE_MS: String(options.leaseMs ?? LEASE_MS),
      TROUPE_HOST: '127.0.0.1',
      TROUPE_WORKER_CONCURRENCY: '8',
    };
    processEnv = env;
    const apiProcess = new ServerProcess('api', ['--role', 'api', '--port', '0'], env);
    processes.push(apiProcess);
    // The API process migrates and seeds first, so the workers start against a ready schema.
    const [, url] = await apiProcess.waitFor(/Troupe is serving on (http:\/\/\S+)/);
    const [, secret] = await apiProcess.waitFor(/Token for "demo"[^:]*: (trp_\S+)/);
    baseUrl = url ?? '';
    token = secret ?? '';
    workers = [1, 2].map((index) => new ServerProcess(`worker-${index}`, ['--role', 'worker'], env));
    processes.push(...workers);
    await Promise.all(workers.map((worker) => worker.waitFor(/Troupe worker \d+ is running/)));
  }, 2 * START_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(processes.map((server) => server.stop()));
    await model?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await adminQuery(adminUrl(), `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1 });
    redis.on('error', () => undefined);
    try {
      for (const pattern of ['troupe:*']) {
        const keys = await redis.keys(pattern);
        if (keys.length > 0) await redis.del(...keys);
      }
    } finally {
      await redis.quit();
    }
  }, 60_000);

  /** Starts one more worker of the cluster (after a suite killed others) and resolves once it runs. */
  async function addWorker(name: string): Promise<ServerProcess> {
    const worker = new ServerProcess(name, ['--role', 'worker'], processEnv);
    processes.push(worker);
    workers.push(worker);
    await worker.waitFor(/Troupe worker \d+ is running/);
    return worker;
  }

  return {
    api,
    json,
    addWorker,
    startRun,
    getRun,
    pidOf,
    stream,
    eventOf,
    expectGapless,
    persistedSeqs,
    failureReport,
    get databaseUrl() {
      return databaseUrl();
    },
    get baseUrl() {
      return baseUrl;
    },
    get apiProcess() {
      return processes[0];
    },
    get workers() {
      return workers;
    },
    get model() {
      return model;
    },
    set answer(next: (role: string, turn: number, request: RecordedRequest) => FakeModelResponse) {
      answer = next;
    },
  };
}
