import type { Run } from '../../src/core/records/run.js';
import { eventually } from '../../test/helpers/eventually.js';
import { mapLimit } from './map-limit.js';
import type { Cluster } from './scale-out-cluster.js';
import { roundSummary, summarize } from './stats.js';
import { progress } from './suite.js';
import {
  CLIENT_CONCURRENCY,
  RUN_TIMEOUT_MS,
  SCALE_OUT_SUITE,
  checkAnswer,
  ms,
  type ScaleOutAgents,
} from './scale-out-support.js';

/** (c) `kill -9` the worker holding the most of `count` slow runs; time until the survivors completed its runs. */
export async function measureRecovery(
  cluster: Cluster,
  agents: ScaleOutAgents,
  count: number,
  stepDelayMs: number,
) {
  const { api, config } = cluster;
  const conversations = await mapLimit(Array.from({ length: count }), CLIENT_CONCURRENCY, () =>
    api.createConversation(agents.slow),
  );
  const runs = await mapLimit(conversations, CLIENT_CONCURRENCY, (conversation, index) =>
    api.postMessage(conversation, `recovery ${index}`),
  );
  let last: Run[] = [];
  const claimed = await eventually('every slow run to be running on a worker', RUN_TIMEOUT_MS, async () => {
    const current = await mapLimit(runs, CLIENT_CONCURRENCY, (run) => api.getRun(run.id));
    last = current;
    return current.every((run) => run.status === 'running' && cluster.workerOf(run.worker_id))
      ? current
      : undefined;
  }).catch((error: unknown) => {
    // Say where each run was, so a failed recovery measurement can be told apart from a slow one.
    const where = last.map((run) => `${run.status}${run.worker_id ? `@${run.worker_id}` : ''}`).join(', ');
    throw new Error(`${error instanceof Error ? error.message : String(error)}; runs: ${where}`, {
      cause: error,
    });
  });
  const owners = new Map<string, Run[]>();
  for (const run of claimed) {
    const owner = cluster.workerOf(run.worker_id)?.name ?? '';
    owners.set(owner, [...(owners.get(owner) ?? []), run]);
  }
  const [victimName, orphans = []] = [...owners].sort((a, b) => b[1].length - a[1].length)[0] ?? [];
  const victim = cluster.workers.find((worker) => worker.name === victimName);
  if (!victim) throw new Error('no worker holds the slow runs');
  progress(
    SCALE_OUT_SUITE,
    `kill -9 ${victim.name} (pid ${victim.pid}) holding ${orphans.length} of ${count} running runs`,
  );
  const killedAt = Date.now();
  await victim.killHard();
  const completedAt = await Promise.all(
    orphans.map((run) =>
      api.awaitRun(run.id, 4 * config.leaseMs + RUN_TIMEOUT_MS).then((done) => {
        checkAnswer(done, 'A slow answer to');
        // The victim is dead: a second attempt that completed was run by a surviving worker.
        if (done.attempt < 2)
          throw new Error(`run ${run.id} was not resumed by another worker (attempt ${done.attempt})`);
        return Date.now();
      }),
    ),
  );
  const reclaimedAt = await mapLimit(orphans, 4, async (run) => {
    const second = (await api.events(run.id)).find(
      (event) => event.type === 'metadata' && event.payload.attempt === 2,
    );
    if (!second) throw new Error(`run ${run.id} has no second-attempt metadata event`);
    return Date.parse(second.created_at);
  });
  const others = claimed.filter((run) => !orphans.includes(run));
  await Promise.all(
    others.map((run) =>
      api.awaitRun(run.id, RUN_TIMEOUT_MS).then((done) => checkAnswer(done, 'A slow answer to')),
    ),
  );
  return {
    workers_before_kill: cluster.workers.length,
    victim: victim.name,
    runs: count,
    orphaned_runs: orphans.length,
    lease_ms: config.leaseMs,
    lease_renewed_every_ms: Math.max(50, Math.floor(config.leaseMs / 3)),
    reconciler_every_ms: Math.max(1000, Math.floor(config.leaseMs / 2)),
    lease_expiry: config.leaseExpiry,
    step_delay_ms: stepDelayMs,
    kill_to_all_reclaimed_ms: ms(killedAt, Math.max(...reclaimedAt)),
    kill_to_all_completed_ms: ms(killedAt, Math.max(...completedAt)),
    kill_to_completed_ms: roundSummary(summarize(completedAt.map((at) => at - killedAt))),
  };
}
