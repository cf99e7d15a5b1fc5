import { describe, expect, it } from 'vitest';
import type { Run } from '../../src/core/records/run.js';
import { RUN_TIMEOUT_MS, scaleOutUrls, useScaleOutCluster } from '../helpers/scale-out-cluster.js';
import { delay, eventually } from '../helpers/server-process.js';
import type { SseFrame } from '../helpers/start-test-server.js';

/* Runs executed on a worker and recovered when one dies (the cluster: test/helpers/scale-out-cluster.ts). */
const urls = scaleOutUrls();
if (urls) {
  const cluster = useScaleOutCluster(urls);
  const { api, json, startRun, getRun, pidOf, stream, eventOf, expectGapless, persistedSeqs, failureReport } =
    cluster;

  describe('scale-out: one API process, two workers, PostgreSQL and Redis', () => {
    it(
      'executes a run on a worker and streams, awaits and cancels it from the API process',
      async () => {
        try {
          const workerPids = cluster.workers.map((worker) => worker.pid);

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
          const victim = cluster.workers.find((worker) => worker.pid === victimPid);
          const survivor = cluster.workers.find((worker) => worker !== victim);
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
              .map((frame) => eventOf(frame))
              .map((event) => (event.type === 'metadata' ? event.payload.attempt : null));
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
