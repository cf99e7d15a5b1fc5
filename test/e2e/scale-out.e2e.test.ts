import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/records/run-event.js';
import type { Run } from '../../src/core/records/run.js';
import { readSse, type SseFrame } from '../helpers/start-test-server.js';
import type {
  FakeModelResponse,
  FakeModelServer,
} from '../helpers/models/fake-model-server.js';
import { startFakeOpenAiServer } from '../helpers/models/fake-openai-server.js';
import { busyTurn, roleOf, teamTurn, turnOf } from '../helpers/role-model.js';

interface TreeNode {
  run: Run;
  children: TreeNode[];
}
const flatten = (node: TreeNode): TreeNode[] => [node, ...node.children.flatMap(flatten)];
const TERMINAL: readonly string[] = ['completed', 'failed', 'cancelled', 'interrupted'];

/*
 * Scale-out with real processes: one `--role api` process and two `--role worker` processes sharing a fresh
 * PostgreSQL database and Redis, as `troupe serve` runs them in production. Gated on TROUPE_TEST_DATABASE_URL
 * and TROUPE_TEST_REDIS_URL (`.ci/run` sets both). Every wait is bounded; every process is killed in afterAll.
 */
const DATABASE_URL = process.env.TROUPE_TEST_DATABASE_URL;
const REDIS_URL = process.env.TROUPE_TEST_REDIS_URL;
const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
const LEASE_MS = 2_000;
/** tsx compiles the server on start; on a loaded 2-core CI machine that takes a while. */
const START_TIMEOUT_MS = 90_000;
const RUN_TIMEOUT_MS = 60_000;

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` until it returns a value, failing with `what` after `timeoutMs`. */
async function eventually<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(100);
  }
}

/** A `troupe serve` child process, with its output kept for assertions and failure reports. */
class ServerProcess {
  readonly child: ChildProcess;
  output = '';
  exited = false;

  constructor(
    readonly name: string,
    args: string[],
    env: NodeJS.ProcessEnv,
  ) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const append = (chunk: Buffer): void => {
      // Bounded: a chatty process must not eat the test runner's memory.
      this.output = (this.output + chunk.toString('utf8')).slice(-64 * 1024);
    };
    this.child.stdout?.on('data', append);
    this.child.stderr?.on('data', append);
    this.child.once('exit', () => (this.exited = true));
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.name} has no pid`);
    return this.child.pid;
  }

  /** Resolves with the first match of `pattern` in the output, or fails when the process exits or time runs out. */
  waitFor(pattern: RegExp, timeoutMs = START_TIMEOUT_MS): Promise<RegExpMatchArray> {
    return eventually(`${this.name} to print ${String(pattern)}`, timeoutMs, () => {
      const match = pattern.exec(this.output);
      if (match) return Promise.resolve(match);
      if (this.exited) return Promise.reject(new Error(`${this.name} exited early:\n${this.output}`));
      return Promise.resolve(undefined);
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

if (!DATABASE_URL || !REDIS_URL) {
  const reason =
    'scale-out e2e: skipped because TROUPE_TEST_DATABASE_URL and TROUPE_TEST_REDIS_URL are not both set (.ci/run sets them)';
  // The default reporter shows only a skip count; say why.
  console.warn(reason);
  describe.skip(reason, () => {
    it('needs PostgreSQL and Redis', () => undefined);
  });
} else {
  const adminUrl = DATABASE_URL;
  const database = `troupe_e2e_${randomBytes(6).toString('hex')}`;
  const databaseUrl = withDatabase(adminUrl, database);
  // A Redis logical database of its own, so this suite's queue and streams never meet another test's.
  const redisDb = 1 + ((randomBytes(1)[0] ?? 0) % 15);
  const redisUrlParsed = new URL(REDIS_URL);
  redisUrlParsed.pathname = `/${redisDb}`;
  const redisUrl = redisUrlParsed.toString();

  const processes: ServerProcess[] = [];
  /** The model of the stop-guarantee test: a fake OpenAI server in this process, which the workers call. */
  let model: FakeModelServer;
  let answer: (role: string, turn: number) => FakeModelResponse = () => ({ text: 'ok' });
  let dataDir = '';
  let baseUrl = '';
  let token = '';
  let workers: ServerProcess[] = [];

  const api = (pathname: string, init: RequestInit = {}): Promise<Response> =>
    fetch(`${baseUrl}${pathname}`, {
      ...init,
      signal: init.signal ?? AbortSignal.timeout(RUN_TIMEOUT_MS),
      headers: {
        authorization: `Bearer ${token}`,
        ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
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
    const client = new pg.Client({ connectionString: databaseUrl });
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
    await adminQuery(adminUrl, `CREATE DATABASE ${database}`);
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-scale-out-'));
    model = await startFakeOpenAiServer({ responses: (request) => answer(roleOf(request), turnOf(request)) });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      OPENAI_BASE_URL: model.baseURL,
      OPENAI_API_KEY: 'sk-test',
      TROUPE_MAX_CHILDREN_PER_RUN: '20',
      TROUPE_MAX_CHILDREN_PER_USER: '100',
      TROUPE_DATABASE_URL: databaseUrl,
      TROUPE_REDIS_URL: redisUrl,
      // Project workdirs are real files: every process of a deployment shares the data dir.
      TROUPE_DATA_DIR: dataDir,
      TROUPE_SCENARIO_DIR: path.join(REPO_ROOT, 'scenarios'),
      TROUPE_LEASE_MS: String(LEASE_MS),
      TROUPE_HOST: '127.0.0.1',
      TROUPE_WORKER_CONCURRENCY: '8',
    };
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
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    const redis = new Redis(redisUrl);
    try {
      for (const pattern of ['troupe:*']) {
        const keys = await redis.keys(pattern);
        if (keys.length > 0) await redis.del(...keys);
      }
    } finally {
      await redis.quit();
    }
  }, 60_000);

  describe('scale-out: one API process, two workers, PostgreSQL and Redis', () => {
    it(
      'executes a run on a worker and streams, awaits and cancels it from the API process',
      async () => {
        try {
          const workerPids = workers.map((worker) => worker.pid);

          // A quick run: streamed over SSE from the API process, gapless, and awaited there.
          const quick = await startRun('Hello from the scale-out test');
          const quickStream = stream(quick.id);
          const awaited = await json<{ run: Run; wait_timed_out: boolean }>(
            api(`/api/agent/runs/${quick.id}/await?timeout_ms=${RUN_TIMEOUT_MS}`),
          );
          expect(awaited.wait_timed_out).toBe(false);
          expect(awaited.run.status).toBe('completed');
          expect(awaited.run.output).toContain('Hello from the scale-out test');
          const quickFrames = await quickStream.done;
          expectGapless(quickFrames);
          expect(quickFrames[0]?.event).toBe('metadata');
          expect(quickFrames.map((frame) => frame.event)).toContain('tool_call');

          // A slow run: owned by a worker (the API process executes nothing), cancelled from the API process.
          const slow = await startRun('please be slow');
          let firstDelta: () => void = () => undefined;
          const sawDelta = new Promise<void>((resolve) => (firstDelta = resolve));
          const slowStream = stream(slow.id, (frame) => {
            if (frame.event === 'message_delta') firstDelta();
          });
          await Promise.race([
            sawDelta,
            delay(RUN_TIMEOUT_MS).then(() => Promise.reject(new Error('no message_delta arrived over SSE'))),
          ]);
          const running = await getRun(slow.id);
          expect(running.status).toBe('running');
          expect(workerPids).toContain(pidOf(running.worker_id));

          const timedOut = await json<{ run: Run; wait_timed_out: boolean }>(
            api(`/api/agent/runs/${slow.id}/await?timeout_ms=200`),
          );
          expect(timedOut.wait_timed_out).toBe(true);
          expect(timedOut.run.status).toBe('running');

          const waiting = json<{ run: Run; wait_timed_out: boolean }>(
            api(`/api/agent/runs/${slow.id}/await?timeout_ms=${RUN_TIMEOUT_MS}`),
          );
          await json(api(`/api/agent/runs/${slow.id}/cancel`, { method: 'POST' }));
          // The waiter on the API process wakes on the terminal event the worker publishes through Redis.
          const cancelled = await waiting;
          expect(cancelled.wait_timed_out).toBe(false);
          expect(cancelled.run.status).toBe('cancelled');
          const slowFrames = await slowStream.done;
          expectGapless(slowFrames);
          expect(eventOf(slowFrames.at(-1) as SseFrame).payload).toMatchObject({ status: 'cancelled' });
        } catch (error) {
          throw new Error(`${String(error)}\n${failureReport()}`, { cause: error });
        }
      },
      3 * RUN_TIMEOUT_MS,
    );

    it(
      'stop guarantee across processes: after a cancel no model request of the tree reaches the model',
      async () => {
        try {
          await json(
            api('/api/me/delegation-policy', { method: 'PUT', body: JSON.stringify({ policy: 'all' }) }),
          );
          for (const [slug, extra] of [
            ['boss', {}],
            ['worker', { status: 'published' }],
            ['helper', { status: 'published' }],
            ['gatekeeper', {}],
          ] as const) {
            await json(
              api('/api/agent', {
                method: 'POST',
                body: JSON.stringify({
                  slug,
                  name: slug,
                  description: `The ${slug}`,
                  config: { model: 'openai:gpt-test', system_prompt: `ROLE:${slug}` },
                  ...extra,
                }),
              }),
              201,
            );
          }
          // The boss, 5 subagents, 5 workers and 5 helpers: each has one request at the model, answered in a minute.
          answer = (role, turn) => teamTurn(role, turn, 10);
          const before = model.requests.length;
          const boss = await startRun('Run the whole team', 'boss');
          await eventually('16 requests at the model', RUN_TIMEOUT_MS, () =>
            Promise.resolve(model.requests.length - before >= 16 ? true : undefined),
          );
          await json(api(`/api/agent/runs/${boss.id}/cancel`, { method: 'POST' }));
          const tree = await eventually('a terminal tree', RUN_TIMEOUT_MS, async () => {
            const nodes = flatten(
              (await json<{ tree: TreeNode }>(api(`/api/agent/runs/${boss.id}/tree`))).tree,
            );
            return nodes.every((node) => TERMINAL.includes(node.run.status)) ? nodes : undefined;
          });
          await delay(500);
          expect(model.requests.length - before).toBe(16);
          expect(tree.map((node) => node.run.status)).toEqual(Array.from({ length: 16 }, () => 'cancelled'));

          // Only the database learns of a cancel (no signal, no cascade): the workers' gates stop the children.
          answer = (role, turn) =>
            role === 'gatekeeper' && turn === 0
              ? {
                  toolCalls: [0, 1, 2, 3].map((index) => ({
                    name: 'task',
                    args: { subagent_slug: 'general-purpose', description: `CHILD gate ${index}` },
                  })),
                }
              : busyTurn(20);
          const gatekeeper = await startRun('Keep them busy', 'gatekeeper');
          await eventually('children calling the model repeatedly', RUN_TIMEOUT_MS, () =>
            Promise.resolve(
              model.requests.filter((request) => roleOf(request) === 'child' && turnOf(request) >= 2)
                .length >= 4
                ? true
                : undefined,
            ),
          );
          await adminQuery(
            databaseUrl,
            `UPDATE runs SET status = 'cancel_requested' WHERE id = '${gatekeeper.id}'`,
          );
          const children = await eventually('children stopped by the gate', RUN_TIMEOUT_MS, async () => {
            const root = (await json<{ tree: TreeNode }>(api(`/api/agent/runs/${gatekeeper.id}/tree`))).tree;
            return root.children.length === 4 &&
              root.children.every((child) => child.run.status === 'cancelled')
              ? root.children
              : undefined;
          });
          expect(children.map((child) => child.run.error?.type)).toEqual(
            Array.from({ length: 4 }, () => 'execution_tree_closed'),
          );
          const settled = model.requests.length;
          await delay(500);
          expect(model.requests.length).toBe(settled);
        } catch (error) {
          throw new Error(`${String(error)}\n${failureReport()}`, { cause: error });
        }
      },
      4 * RUN_TIMEOUT_MS,
    );

    it(
      'recovers the runs of a worker killed with SIGKILL: another worker resumes them, streams stay gapless',
      async () => {
        try {
          const runs = await Promise.all(
            Array.from({ length: 4 }, (_, index) => startRun(`please be slow (${index})`)),
          );
          const streams = runs.map((run) => stream(run.id));

          // Every run claimed by a worker and streaming.
          const claimed = await eventually(
            'every run to be running on a worker',
            RUN_TIMEOUT_MS,
            async () => {
              const current = await Promise.all(runs.map((run) => getRun(run.id)));
              const ready = current.every(
                (run) => run.status === 'running' && pidOf(run.worker_id) !== undefined,
              );
              const streaming = streams.every((entry) =>
                entry.frames.some((frame) => frame.event === 'message_delta'),
              );
              return ready && streaming ? current : undefined;
            },
          );
          const victimPid = pidOf(claimed[0]?.worker_id ?? null);
          const victim = workers.find((worker) => worker.pid === victimPid);
          const survivor = workers.find((worker) => worker !== victim);
          if (!victim || !survivor)
            throw new Error(`run 0 is owned by ${claimed[0]?.worker_id}, not by a test worker`);
          const orphaned = claimed.filter((run) => pidOf(run.worker_id) === victim.pid).map((run) => run.id);
          expect(orphaned.length).toBeGreaterThan(0);

          process.kill(victim.pid, 'SIGKILL');
          await eventually('the killed worker to exit', 10_000, () =>
            Promise.resolve(victim.exited ? true : undefined),
          );

          const allFrames = await Promise.race([
            Promise.all(streams.map((entry) => entry.done)),
            delay(2 * RUN_TIMEOUT_MS).then(() => Promise.reject(new Error('the SSE streams did not end'))),
          ]);

          const finished = await Promise.all(runs.map((run) => getRun(run.id)));
          for (const run of finished) expect(run.status, `run ${run.id}`).toBe('completed');
          const persisted = await persistedSeqs(runs.map((run) => run.id));

          runs.forEach((run, index) => {
            const frames = allFrames[index] ?? [];
            // The SSE client connected to the API process saw every event once, in order, with no gap.
            expectGapless(frames);
            expect(eventOf(frames.at(-1) as SseFrame).payload).toMatchObject({ status: 'completed' });
            // Persisted events: seq exactly 1..n, none lost or duplicated, and the client saw all of them.
            const seqs = persisted.get(run.id) ?? [];
            expect(seqs).toEqual(seqs.map((_, position) => position + 1));
            expect(seqs).toHaveLength(frames.length);

            const attempts = frames
              .filter((frame) => frame.event === 'metadata')
              .map((frame) => eventOf(frame).payload.attempt);
            if (orphaned.includes(run.id)) {
              // Resumed by the survivor: the stream continues with the second attempt's metadata.
              expect(attempts).toEqual([1, 2]);
              expect(finished[index]?.attempt).toBe(2);
            } else {
              expect(attempts).toEqual([1]);
            }
          });
          expect(survivor.exited).toBe(false);
        } catch (error) {
          throw new Error(`${String(error)}\n${failureReport()}`, { cause: error });
        }
      },
      4 * RUN_TIMEOUT_MS,
    );
  });
}
