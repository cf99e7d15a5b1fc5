/**
 * Scale-out: a throwaway PostgreSQL cluster and redis-server, one `troupe serve --role api` process and 1, 2,
 * then 4 `--role worker` processes, driven over loopback HTTP with the one-`task` dispatch scenario of the
 * dispatch suite. Measures (a) one dispatch round trip (and the plain-answer baseline, and the `task` span
 * from the stored events), (b) end-to-end throughput of a fixed batch at each worker count, and (c) recovery:
 * `kill -9` of a worker holding active runs, until the surviving workers have completed every one of them;
 * and, per worker count, the statements and Redis commands one dispatch costs; (a) is timed again once the
 * batches warmed every process (`steady_task`). First, (a) and (b) on the embedded server alone, over the same
 * client: the like-for-like reference (`embedded_http`); then the dispatch suite's in-process contender in steady
 * state (`in_process_steady`).
 */
import os from 'node:os';
import type { RunEvent } from '../../src/core/records/run-event.js';
import {
  expectedAnswer,
  HELPER_SCENARIO,
  MAIN_SCENARIO,
  QUICK_SEQUENTIAL_PLAN,
  SEQUENTIAL_PLAN,
  type SequentialPlan,
} from '../lib/dispatch-scenario.js';
import { mapLimit } from '../lib/map-limit.js';
import { roundTripProbe, type RoundTripProbe } from '../lib/round-trip-probe.js';
import { processCpuMs, processTreeCpuMs } from '../lib/process-cpu.js';
import { startCluster, startEmbeddedServer, type Cluster } from '../lib/scale-out-cluster.js';
import { findServiceBinaries, startServices } from '../../test/helpers/services/services.js';
import { round, roundSummary, summarize } from '../lib/stats.js';
import { progress, runSuite } from '../lib/suite.js';
import { createTeardown } from '../../test/helpers/services/teardown.js';
import type { TroupeApi } from '../lib/troupe-api.js';
import { measureRecovery } from '../lib/measure-recovery.js';
import { measureInProcessSteady } from '../lib/in-process-steady.js';
import { postgresWaitsCounter, type PostgresWaitsCounter } from '../lib/postgres-waits.js';
import { pinningFromEnv, pinProcess } from '../lib/pin-cluster.js';
import {
  CLIENT_CONCURRENCY,
  RUN_TIMEOUT_MS,
  SCALE_OUT_SUITE,
  checkAnswer,
  createAgents,
  type ScaleOutAgents,
} from '../lib/scale-out-support.js';

function slowScenario(delayMs: number): string {
  return JSON.stringify({
    rules: [{ steps: [{ text: 'A slow answer to {{input}}, streamed.', delay_ms: delayMs, chunk_size: 8 }] }],
  });
}

const loadAverage = (): number[] => os.loadavg().map((value) => Math.round(value * 100) / 100);

/** From the parent's `task` tool_call event to its tool_result event, by their stored timestamps. */
function taskSpan(events: RunEvent[]): number {
  const at = (type: string) =>
    events
      .filter((event) => event.type === 'tool_call' || event.type === 'tool_result')
      .find((event) => event.type === type && event.payload.name === 'task')?.created_at;
  const call = at('tool_call');
  const result = at('tool_result');
  if (!call || !result) throw new Error('the dispatch has no task tool_call/tool_result events');
  return Date.parse(result) - Date.parse(call);
}

const cpuOf = (cluster: Cluster) => ({
  postgres: processTreeCpuMs(cluster.services.postgres.pid),
  redis: processCpuMs(cluster.services.redis.pid),
  api: processCpuMs(cluster.apiProcess.pid),
  workers: cluster.workers.map((worker) => processCpuMs(worker.pid)),
});

/** One round trip over HTTP, timed: post the message (in a new conversation), long-poll its end. */
async function timedDispatch(api: TroupeApi, agents: ScaleOutAgents, kind: 'task' | 'plain', input: string) {
  const conversation = await api.createConversation(agents.main);
  const started = performance.now();
  const run = await api.postMessage(conversation, input);
  const done = await api.awaitRun(run.id, RUN_TIMEOUT_MS);
  const wall = performance.now() - started;
  checkAnswer(done, expectedAnswer(kind, input));
  return { wall, runId: run.id };
}

const timedOneAtATime = (plan: SequentialPlan): string =>
  `${plan.warmup} + ${plan.warmup} warm-up, then ${plan.rounds} × (${plan.task} dispatches and ${plan.plain} plain runs) one at a time`;

/** How many of the first timed dispatches `task_first_40` summarises: what runs before 2026-12-08 timed. */
const FIRST_TIMED = 40;

/**
 * (a) Sequential round trips over HTTP: post the message, long-poll its end; warmed and timed as the dispatch
 * suite times the in-process contender the ratio divides by (`SEQUENTIAL_PLAN`): the same warm-up, then the same
 * rounds of dispatches and plain runs, so both medians summarise the same dispatches of a process's life
 * (BENCHMARKS.md, "The same dispatches on both sides of the ratio").
 */
async function measureDispatch(api: TroupeApi, agents: ScaleOutAgents, plan: SequentialPlan) {
  let sequence = 0;
  const once = (kind: 'task' | 'plain') =>
    timedDispatch(
      api,
      agents,
      kind,
      kind === 'plain' ? `plain question ${sequence++}` : `question ${sequence++}`,
    );
  for (let i = 0; i < plan.warmup; i++) await once('task');
  for (let i = 0; i < plan.warmup; i++) await once('plain');
  const task: { wall: number; runId: string }[] = [];
  const plain: number[] = [];
  for (let round = 0; round < plan.rounds; round++) {
    for (let i = 0; i < plan.task; i++) task.push(await once('task'));
    for (let i = 0; i < plan.plain; i++) plain.push((await once('plain')).wall);
  }
  const spans = await mapLimit(task, 4, async (sample) => taskSpan(await api.events(sample.runId)));
  const walls = task.map((sample) => sample.wall);
  const taskSummary = roundSummary(summarize(walls));
  const plainSummary = roundSummary(summarize(plain));
  return {
    task: taskSummary,
    task_first_40: roundSummary(summarize(walls.slice(0, FIRST_TIMED))),
    plain: plainSummary,
    dispatch_marginal_ms: round(taskSummary.median - plainSummary.median),
    task_span: roundSummary(summarize(spans)),
  };
}

/**
 * (a) again once the processes are warm (after the warm-up batches and the measured batch): `count` dispatches
 * one at a time, for the steady-state comparison with the runtime in process (BENCHMARKS.md, "A dispatch one at
 * a time, in steady state").
 */
async function measureSteadyTasks(api: TroupeApi, agents: ScaleOutAgents, count: number, tag: string) {
  const walls: number[] = [];
  for (let i = 0; i < count; i++)
    walls.push((await timedDispatch(api, agents, 'task', `steady ${tag} ${i}`)).wall);
  return roundSummary(summarize(walls));
}

/**
 * Statements and commands per dispatch on the shared services: `count` dispatches one at a time (their
 * conversations made before counting), each posted and long-polled to its end as in (a).
 */
async function measureRoundTrips(
  api: TroupeApi,
  agents: ScaleOutAgents,
  probe: RoundTripProbe,
  count: number,
  waits: { counter: PostgresWaitsCounter; pids: number[] } | undefined,
) {
  const conversations = [];
  for (let i = 0; i < count; i++) conversations.push(await api.createConversation(agents.main));
  await probe.start();
  const before = await waits?.counter.read(waits.pids);
  for (const [index, conversation] of conversations.entries()) {
    const input = `counted ${index}`;
    const run = await api.postMessage(conversation, input);
    checkAnswer(await api.awaitRun(run.id, RUN_TIMEOUT_MS), expectedAnswer('task', input));
  }
  const after = await waits?.counter.read(waits.pids);
  const counted = await probe.read(count);
  if (before && after) {
    counted.postgres.round_trips_per_dispatch = round((after.round_trips - before.round_trips) / count);
    counted.postgres.transactions_per_dispatch = round((after.transactions - before.transactions) / count);
  }
  return counted;
}

/**
 * (b) A fixed batch of dispatches, each in a conversation of its own, posted `CLIENT_CONCURRENCY` at a time;
 * `cpu` reads the CPU time of the measured processes, before the batch and after.
 */
async function measureBatch<C>(
  api: TroupeApi,
  agents: ScaleOutAgents,
  count: number,
  tag: string,
  cpu: () => C,
) {
  const conversations = await mapLimit(Array.from({ length: count }), CLIENT_CONCURRENCY, () =>
    api.createConversation(agents.main),
  );
  const cpuBefore = cpu();
  const started = performance.now();
  const latencies: number[] = [];
  const finished = await mapLimit(conversations, CLIENT_CONCURRENCY, async (conversation, index) => {
    const input = `batch ${tag} ${index}`;
    const posted = performance.now();
    const run = await api.postMessage(conversation, input);
    // Awaited outside the posting lanes (wrapped, so the lane does not wait): the client keeps posting while
    // earlier runs execute. The no-op catch only keeps an early failure from counting as unhandled.
    const done = api.awaitRun(run.id, RUN_TIMEOUT_MS).then((ended) => {
      latencies.push(performance.now() - posted);
      checkAnswer(ended, expectedAnswer('task', input));
      return ended;
    });
    done.catch(() => undefined);
    return { done };
  });
  await Promise.all(finished.map((entry) => entry.done));
  const wallS = (performance.now() - started) / 1000;
  const cpuAfter = cpu();
  return {
    summary: {
      dispatches: count,
      runs: 2 * count,
      wall_s: round(wallS),
      dispatches_per_s: round(count / wallS),
      runs_per_s: round((2 * count) / wallS),
      latency_ms: roundSummary(summarize(latencies)),
    },
    /** CPU time per dispatch of one process (from /proc), as `of` reads it from a sample. */
    cpuPerDispatch: (of: (sample: C) => number) => round((of(cpuAfter) - of(cpuBefore)) / count),
  };
}

/**
 * Batches of the measured shape, unrecorded, before the batch that is: a process's CPU per dispatch keeps
 * falling for its first ~1,500 dispatches (V8 still optimising its hot code: 216 functions compiled during a
 * batch of 300 after 60 warm-up dispatches, 31 six batches later), so a batch timed right after the sequential
 * warm-up measured the JIT's warm-up as a cost of every dispatch (BENCHMARKS.md, "Capacity in steady state").
 * `dispatches` are spread over the processes the way the measured batch is. Returns each warm-up batch's CPU
 * per dispatch, so the fall stays visible in the results.
 */
async function warmUpBatches(
  api: TroupeApi,
  agents: ScaleOutAgents,
  dispatches: number,
  batch: number,
  tag: string,
  cpu: () => number,
) {
  const cpu_ms_per_dispatch: number[] = [];
  for (let index = 0; index * batch < dispatches; index++) {
    const measured = await measureBatch(api, agents, batch, `${tag}-warm${index}`, cpu);
    cpu_ms_per_dispatch.push(measured.cpuPerDispatch((total) => total));
  }
  return { dispatches: cpu_ms_per_dispatch.length * batch, cpu_ms_per_dispatch };
}

const clusterCpuTotal = (cluster: Cluster): number => {
  const cpu = cpuOf(cluster);
  return cpu.postgres + cpu.redis + cpu.api + cpu.workers.reduce((sum, worker) => sum + worker, 0);
};

/**
 * The embedded server (SQLite, in-process queue and bus) measured as the cluster is, over the same HTTP client:
 * the like-for-like reference for a scale-out dispatch (the dispatch suite calls the runtime in process, without
 * HTTP). Stopped before the cluster starts, so the two never share the machine.
 */
async function measureEmbeddedOverHttp(
  plan: { sequential: SequentialPlan; steadyTask: number; batch: number; steady: number },
  scenarios: Record<string, string>,
  env: Record<string, string>,
) {
  const teardown = createTeardown((message) => progress(SCALE_OUT_SUITE, message));
  try {
    const server = await startEmbeddedServer({ scenarios, env, teardown });
    const agents = await createAgents(server.api);
    const dispatch = await measureDispatch(server.api, agents, plan.sequential);
    const cpu = () => processCpuMs(server.process.pid);
    const warmup = await warmUpBatches(server.api, agents, plan.steady, plan.batch, 'embedded', cpu);
    const measured = await measureBatch(server.api, agents, plan.batch, 'embedded', cpu);
    const steadyTask = await measureSteadyTasks(server.api, agents, plan.steadyTask, 'embedded');
    return {
      ...dispatch,
      batch: { ...measured.summary, cpu_ms_per_dispatch: measured.cpuPerDispatch((total) => total), warmup },
      steady_task: steadyTask,
    };
  } finally {
    await teardown.run();
  }
}

await runSuite(SCALE_OUT_SUITE, async ({ quick }) => {
  const found = findServiceBinaries();
  if ('missing' in found) throw new Error(`scale-out needs PostgreSQL and Redis binaries: ${found.missing}`);
  const plan = quick
    ? {
        workers: [1, 2],
        sequential: QUICK_SEQUENTIAL_PLAN,
        steadyTask: 5,
        counted: 5,
        batch: 10,
        steady: 10,
        recovery: 4,
        stepDelayMs: 4_000,
      }
    : // Recovery: no more slow runs than one worker has slots (8), so they are all running at once however
      // the queue spreads them (16 could leave some pending behind a worker's full slots until others end).
      {
        workers: [1, 2, 4],
        // The dispatch suite's warm-up and rounds (bench/suites/dispatch.ts).
        sequential: SEQUENTIAL_PLAN,
        // Dispatches timed one at a time once every process is warm.
        steadyTask: 40,
        counted: 20,
        batch: 200,
        // Unrecorded batches before the measured one, per worker (each new worker warms as the first did).
        steady: 1_500,
        recovery: 8,
        stepDelayMs: 8_000,
      };
  const pinning = pinningFromEnv();
  const loadBefore = loadAverage();
  const scenarios = { main: MAIN_SCENARIO, helper: HELPER_SCENARIO, slow: slowScenario(plan.stepDelayMs) };
  const env = {
    // Every dispatch of the batch may have its child active at once; the default per-user limit (20)
    // would refuse most of them (the fan-out suite raises it the same way).
    TROUPE_MAX_CHILDREN_PER_USER: String(plan.batch),
    // A quick smoke run cannot wait for the default 30 s lease to expire; the full run keeps what is configured.
    ...(quick && !process.env.TROUPE_LEASE_MS ? { TROUPE_LEASE_MS: '2000' } : {}),
  };
  progress(
    SCALE_OUT_SUITE,
    `the embedded server over the same HTTP client: ${timedOneAtATime(plan.sequential)}, then ${plan.steady} unrecorded dispatches in batches and a batch of ${plan.batch}`,
  );
  const embeddedHttp = await measureEmbeddedOverHttp(plan, scenarios, env);
  progress(
    SCALE_OUT_SUITE,
    `the runtime in process (the dispatch suite's contender): ${plan.steady} unrecorded dispatches one at a time, then ${plan.steadyTask}`,
  );
  const inProcessSteady = await measureInProcessSteady({ warmup: plan.steady, task: plan.steadyTask });
  const teardown = createTeardown((message) => progress(SCALE_OUT_SUITE, message));
  try {
    const services = await startServices(found.binaries, teardown);
    progress(
      SCALE_OUT_SUITE,
      `${services.postgres.version} at ${services.postgres.url} (${services.postgres.settings.join(', ')}); ${services.redis.version} at ${services.redis.url}`,
    );
    // The server processes count the PostgreSQL round trips they wait for (postgres-waits-hook.ts).
    const waits = postgresWaitsCounter();
    if (waits) teardown.add('the round-trip counts', () => Promise.resolve(waits.close()));
    const cluster = await startCluster({
      services,
      scenarios,
      env: { ...env, ...waits?.env },
      teardown,
    });
    const { api } = cluster;
    const pinWorkers = () => {
      for (const worker of cluster.workers) pinProcess(worker.pid, pinning?.workers);
    };
    if (pinning) {
      pinProcess(services.postgres.pid, pinning.postgres);
      pinProcess(services.redis.pid, pinning.redis);
      pinProcess(cluster.apiProcess.pid, pinning.api);
      progress(SCALE_OUT_SUITE, `pinned to CPUs: ${JSON.stringify(pinning)}`);
    }
    const probe = await roundTripProbe(services.postgres.url, services.redis.url);
    teardown.add('the round-trip probe', () => probe.close());
    const agents = await createAgents(api);

    const phases = [];
    for (const workers of plan.workers) {
      await cluster.addWorkers(workers - cluster.workers.length);
      if (pinning) pinWorkers();
      progress(
        SCALE_OUT_SUITE,
        `${workers} worker(s): ${timedOneAtATime(plan.sequential)}, then ${plan.steady * workers} unrecorded dispatches in batches and a batch of ${plan.batch}`,
      );
      const dispatch = await measureDispatch(api, agents, plan.sequential);
      const pids = [cluster.apiProcess.pid, ...cluster.workers.map((worker) => worker.pid)];
      const round_trips = await measureRoundTrips(
        api,
        agents,
        probe,
        plan.counted,
        waits && { counter: waits, pids },
      );
      const warmup = await warmUpBatches(api, agents, plan.steady * workers, plan.batch, `w${workers}`, () =>
        clusterCpuTotal(cluster),
      );
      const measured = await measureBatch(api, agents, plan.batch, `w${workers}`, () => cpuOf(cluster));
      const batch = {
        ...measured.summary,
        warmup,
        // CPU time per dispatch of each process: how evenly the workers shared the batch.
        cpu_ms_per_dispatch: {
          postgres: measured.cpuPerDispatch((cpu) => cpu.postgres),
          redis: measured.cpuPerDispatch((cpu) => cpu.redis),
          api: measured.cpuPerDispatch((cpu) => cpu.api),
          workers: cluster.workers.map((_, index) =>
            measured.cpuPerDispatch((cpu) => cpu.workers[index] ?? 0),
          ),
        },
      };
      const steadyTask = await measureSteadyTasks(api, agents, plan.steadyTask, `w${workers}`);
      phases.push({ workers, ...dispatch, round_trips, batch, steady_task: steadyTask });
    }
    progress(
      SCALE_OUT_SUITE,
      `recovery: ${plan.recovery} slow runs (one ${plan.stepDelayMs} ms model turn each) on ${cluster.workers.length} workers, lease ${cluster.config.leaseMs} ms`,
    );
    const recovery = await measureRecovery(cluster, agents, plan.recovery, plan.stepDelayMs);
    return {
      plan,
      postgres: { version: services.postgres.version, settings: services.postgres.settings, durable: false },
      redis: { version: services.redis.version, settings: services.redis.settings, durable: false },
      worker_concurrency: cluster.config.workerConcurrency,
      max_active_children_per_user: cluster.config.limits.maxActiveChildrenPerUser,
      client_concurrency: CLIENT_CONCURRENCY,
      ...(pinning ? { pinned_cpus: pinning } : {}),
      phases,
      embedded_http: embeddedHttp,
      in_process_steady: inProcessSteady,
      recovery,
      load_average: { before: loadBefore, after: loadAverage() },
    };
  } finally {
    await teardown.run();
  }
});
