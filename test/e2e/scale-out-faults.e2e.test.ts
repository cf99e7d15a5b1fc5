import { describe, expect, it } from 'vitest';
import type { Run } from '../../src/core/records/run.js';
import { delay, eventually } from '../helpers/eventually.js';
import {
  allRuns,
  faultyModel,
  halfWritten,
  follow,
  describeJobRequests,
  requestsPerJob,
  startProbe,
  type Followed,
  type ProbeAnswer,
} from '../helpers/fault-load.js';
import { roleOf } from '../helpers/role-model.js';
import { useScaleOutCluster } from '../helpers/scale-out-cluster.js';
import { startThrowawayPostgres } from '../helpers/services/throwaway-postgres.js';
import { startThrowawayRedis } from '../helpers/services/throwaway-redis.js';
import { serviceBinariesOrSkip, useThrowawayServer } from '../helpers/services/use-throwaway-server.js';
import type { SseFrame } from '../helpers/start-test-server.js';

/*
 * The cluster of scale-out.e2e (one API process, two workers) on a PostgreSQL and a Redis of this suite's own,
 * which it stops and restarts under load: 50 root runs (half of them dispatching a `task` child and waiting for
 * it), each followed by an SSE client that resumes with Last-Event-ID (half of them drop their connection
 * during the fault), and a probe sending new requests every
 * 250 ms. After each fault every run completes exactly once, in its first attempt, every model request is made
 * once, SSE is gapless, no answer is a 500, and no process died. The figures (outage, recovery) are printed.
 * Skipped, with the reason, when the server binaries are missing; `.ci/run` installs them.
 */
const binaries = serviceBinariesOrSkip('scale-out faults');
const ROOTS = 50;
/** Longer than an outage here, so the workers' leases outlive it: runs wait it out instead of being taken over. */
const LEASE_MS = 15_000;
const SETTLE_MS = 240_000;
/** The longest the suite keeps PostgreSQL down: well within a lease less its margin (12 s here). */
const OUTAGE_LIMIT_MS = 6_000;

/** What a test does to a server under the load; it sees the probe's answers as they come. */
type Fault = (answers: readonly ProbeAnswer[]) => Promise<void>;

if (binaries) {
  const services = useThrowawayServer(async (dir, teardown) => ({
    postgres: await startThrowawayPostgres(binaries.pgBin, dir, teardown),
    redis: await startThrowawayRedis(binaries.redisServer, dir, teardown),
  }));
  const cluster = useScaleOutCluster(
    () => ({ databaseUrl: services().postgres.url, redisUrl: services().redis.url }),
    { leaseMs: LEASE_MS },
  );
  let batch = 0;

  async function createAgent(): Promise<void> {
    if (batch > 0) return;
    await cluster.json(
      cluster.api('/api/agent', {
        method: 'POST',
        body: JSON.stringify({
          slug: 'faulty',
          name: 'faulty',
          description: 'dispatches or answers slowly',
          config: { model: 'openai:gpt-test', system_prompt: 'ROLE:faulty' },
        }),
      }),
      201,
    );
    cluster.answer = faultyModel;
  }

  /**
   * Starts the load, runs `fault` once the model is busy, and checks everything afterwards. Returns the figures
   * of the run: how long the fault took, and from its end until the first answered probe and the last run.
   */
  async function underLoad(name: string, fault: Fault, faultyStatus: number | undefined) {
    await createAgent();
    batch += 1;
    const before = cluster.model.requests.length;
    const started = Date.now();
    const roots: Run[] = await Promise.all(
      Array.from({ length: ROOTS }, (_, index) =>
        cluster.startRun(`job ${batch * 100 + index} ${index % 2 === 0 ? 'dispatch' : 'slow'}`, 'faulty'),
      ),
    );
    // Half of the SSE clients lose their connection during the fault and resume with Last-Event-ID then.
    let dropConnections: () => void = () => undefined;
    const drop = new Promise<void>((resolve) => (dropConnections = resolve));
    const followed: Promise<Followed>[] = roots.map((run, index) =>
      follow(cluster, run.id, index % 2 === 1 ? drop : undefined),
    );
    await eventually('the model to be busy', 60_000, () =>
      Promise.resolve(cluster.model.requests.length - before >= 16 ? true : undefined),
    );
    const probe = startProbe(cluster, roots[0]?.id ?? '');
    await delay(1_000);
    const faultStarted = Date.now();
    const dropping = delay(500).then(dropConnections);
    await fault(probe.answers);
    await dropping;
    const faultEnded = Date.now();
    await delay(3_000);
    await probe.stop();
    const ids = [...roots, ...probe.started].map((run) => run.id);
    let unfinished: Awaited<ReturnType<typeof allRuns>> = [];
    const otherwise = await eventually(`every run of ${name} to complete`, SETTLE_MS, async () => {
      const runs = await allRuns(cluster.databaseUrl);
      const mine = runs.filter((run) => ids.includes(run.id));
      unfinished = runs.filter((run) => run.status !== 'completed');
      // A run that ended otherwise will never complete: say so at once.
      const ended = unfinished.filter((run) => ['failed', 'cancelled', 'interrupted'].includes(run.status));
      if (ended.length > 0) return ended;
      return mine.length === ids.length && unfinished.length === 0 ? [] : undefined;
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}; not completed: ${JSON.stringify(unfinished.slice(0, 20))}`);
    });
    expect(otherwise).toEqual([]);
    const settled = Date.now();
    const streams = await Promise.all(followed);

    // Every run completed once, in its first attempt: none lost, none duplicated, none taken over.
    const runs = await allRuns(cluster.databaseUrl);
    expect(runs.filter((run) => run.status !== 'completed')).toEqual([]);
    expect(runs.filter((run) => run.attempt !== 1).map((run) => run.id)).toEqual([]);
    const perConversation = new Map<string, number>();
    for (const run of runs.filter((entry) => entry.created_by_run_id === null))
      perConversation.set(run.conversation_id, (perConversation.get(run.conversation_id) ?? 0) + 1);
    expect([...perConversation.values()].filter((count) => count !== 1)).toEqual([]);
    const children = runs.filter(
      (run) => run.created_by_run_id !== null && ids.includes(run.created_by_run_id),
    );
    expect(children).toHaveLength(ROOTS / 2);
    // Nothing half-written survived the fault: no message without its run, no run without its events.
    expect(await halfWritten(cluster.databaseUrl)).toEqual([]);
    expect(new Set(children.map((run) => run.created_by_run_id)).size).toBe(ROOTS / 2);
    // The model was asked once per turn: nothing of a step was repeated.
    const requests = cluster.model.requests.slice(before);
    const counts = requestsPerJob(requests, roleOf);
    roots.forEach((_, index) => {
      const job = `job ${batch * 100 + index}`;
      const seen = `${job} (fault at +${faultStarted - started} ms to +${faultEnded - started} ms): ${describeJobRequests(requests, roleOf, job, started)}`;
      expect(counts.get(`${job}/faulty`), seen).toBe(index % 2 === 0 ? 2 : 1);
      expect(counts.get(`${job}/child`) ?? 0, seen).toBe(index % 2 === 0 ? 1 : 0);
    });
    // SSE: every client saw every persisted event once, in order, ending with `end`.
    const persisted = await cluster.persistedSeqs(roots.map((run) => run.id));
    roots.forEach((run, index) => {
      const frames = streams[index]?.frames ?? [];
      cluster.expectGapless(frames);
      expect(frames.map((frame: SseFrame) => Number(frame.id))).toEqual(persisted.get(run.id));
    });
    // During the fault: answered, or refused with a clear 503 and Retry-After; never a 500.
    const during = probe.answers.filter((answer) => answer.at >= faultStarted && answer.at <= faultEnded);
    const refused = probe.answers.filter((answer) => answer.status >= 500);
    for (const answer of refused) {
      expect(answer, JSON.stringify(answer)).toMatchObject({ status: 503, code: 'storage_unavailable' });
      expect(Number(answer.retryAfter)).toBeGreaterThan(0);
    }
    if (faultyStatus !== undefined)
      expect(during.some((answer) => answer.status === faultyStatus)).toBe(true);
    for (const server of [cluster.apiProcess, ...cluster.workers]) expect(server?.exited).toBe(false);
    // The clients that dropped a live stream did resume, and (above) still saw every event once.
    const droppedLive = streams.filter((entry) => entry.droppedLive);
    expect(droppedLive.length).toBeGreaterThan(0);
    for (const entry of droppedLive) expect(entry.reconnects).toBeGreaterThan(0);

    const firstAnswered = probe.answers.find(
      (answer: ProbeAnswer) => answer.at > faultEnded && answer.what === 'message' && answer.status === 202,
    );
    const figures = {
      fault: name,
      fault_ms: faultEnded - faultStarted,
      first_run_started_after_ms: firstAnswered ? firstAnswered.at - faultEnded : null,
      all_runs_completed_after_ms: settled - faultEnded,
      runs: runs.length,
      runs_lost: ids.length - runs.filter((run) => ids.includes(run.id)).length,
      refused_503: refused.length,
      probes_answered_during: during.filter((answer) => answer.status < 500).length,
      sse_dropped_live: droppedLive.length,
      sse_reconnects: streams.reduce((sum, entry) => sum + entry.reconnects, 0),
    };
    console.log(`[scale-out faults] ${JSON.stringify(figures)}`);
  }

  describe('scale-out faults: PostgreSQL and Redis restart under load', () => {
    const guarded = (name: string, fault: Fault, faultyStatus?: number) => async () => {
      try {
        await underLoad(name, fault, faultyStatus);
      } catch (error) {
        throw new Error(`${String(error)}\n${cluster.failureReport()}`, { cause: error });
      }
    };

    it(
      'Redis stopped for 10 s and started again with its data',
      guarded(
        'redis stopped 10 s, data kept',
        async () => {
          await services().redis.stop({ keepData: true });
          await delay(10_000);
          await services().redis.start();
        },
        202,
      ),
      SETTLE_MS + 120_000,
    );

    it(
      'Redis restarted with its data lost',
      guarded('redis restarted, data lost', async () => {
        await services().redis.stop({ keepData: false });
        await delay(2_000);
        await services().redis.start();
      }),
      SETTLE_MS + 120_000,
    );

    it(
      'PostgreSQL restarted (fast shutdown)',
      guarded(
        'postgres fast shutdown, started again',
        async (answers) => {
          // `pg_ctl stop -m fast` (every backend terminated, 57P01), then a start once a request met the outage:
          // a restart, with a down time long enough for the probe to be answered during it on a loaded machine.
          await services().postgres.stop();
          const stopped = Date.now();
          await eventually('a request answered while PostgreSQL is down', OUTAGE_LIMIT_MS, () =>
            Promise.resolve(
              answers.some((answer) => answer.at > stopped && answer.status >= 500) || undefined,
            ),
          ).catch(() => undefined);
          await services().postgres.start();
        },
        503,
      ),
      SETTLE_MS + 120_000,
    );
  });
}
