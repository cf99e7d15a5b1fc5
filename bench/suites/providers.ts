/**
 * Benchmark: runs that spend their life waiting on a provider (issue 32). Two parts, each on its own
 * embedded server with the default 8 worker slots:
 *
 * 1. Throughput: 2,000 runs, each one model call against a scripted model that takes 1 s, posted at once.
 *    A run waiting on its model call holds no execution slot, so the slots are not the throttle: end-to-end
 *    runs per second (first post → last end), each run's queue wait (created → started) and the process's
 *    RSS (baseline → peak) are reported. Goal: at least 200 runs/s.
 * 2. Fairness: the scripted provider limited to 10 calls at once (`TROUPE_MODEL_LIMITS`). User A's parent
 *    fans out 100 children (1 s model call each); while they queue for the provider, user B posts one-call
 *    runs one after another. B's queue wait (its run's time beyond its 1 s model call) is reported beside
 *    the A children's, p50 and p99.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { newId } from '../../src/core/ids.js';
import type { RunEvent } from '../../src/core/records/run-event.js';
import type { Run } from '../../src/core/records/run.js';
import { DEFAULT_MODEL_CALL_SETTINGS } from '../../src/model-call-settings.js';
import { startEmbeddedTroupe } from '../lib/embedded.js';
import { mapLimit } from '../lib/map-limit.js';
import { epochMs, round, roundSummary, summarize } from '../lib/stats.js';
import { collectGarbage, progress, runSuite } from '../lib/suite.js';

const LATENCY_MS = 1000;
const ONE_CALL = JSON.stringify({
  rules: [{ steps: [{ text: 'Answered after a second.', delay_ms: LATENCY_MS }] }],
});

function fanOutScenario(children: number): string {
  return JSON.stringify({
    rules: [
      {
        steps: [
          {
            tool_calls: Array.from({ length: children }, (_, index) => ({
              name: 'subagent_start',
              args: { subagent_slug: 'worker', description: `Part ${index + 1}` },
            })),
          },
          { tool_calls: [{ name: 'subagent_await', args: { run_ids: '{{run_ids}}', mode: 'all' } }] },
          { text: 'All parts done.' },
        ],
      },
    ],
  });
}

const ms = (from: string | null, to: string | null): number =>
  from === null || to === null ? Number.NaN : Date.parse(to) - Date.parse(from);

/** Peak RSS and heap while `work` runs, sampled every 20 ms, after a GC for the baseline. */
async function measureMemory<T>(work: () => Promise<T>) {
  collectGarbage();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    const result = await work();
    return { result, rss_mib: { baseline: round(baseline / 2 ** 20), peak: round(peak / 2 ** 20) } };
  } finally {
    clearInterval(sampler);
  }
}

async function throughput(runs: number) {
  const env = await startEmbeddedTroupe({ scenarios: { slow: ONE_CALL } });
  try {
    const { troupe, user } = env;
    const agent = await env.createAgent('slow', { model: 'scripted:slow' });
    const conversations = await env.createConversations(agent, runs);
    let ended = 0;
    let lastEnd = 0;
    let allEnded: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (allEnded = resolve));
    const original = troupe.bus.publish.bind(troupe.bus);
    troupe.bus.publish = (event: RunEvent) => {
      if (event.type === 'end') {
        ended += 1;
        lastEnd = epochMs();
        if (ended === runs) allEnded();
      }
      return original(event);
    };
    progress(
      'providers',
      `throughput: ${runs} runs, one ${LATENCY_MS} ms model call each, ${troupe.config.workerConcurrency} worker slots`,
    );
    const cpuBefore = process.cpuUsage();
    const started = epochMs();
    const { result: ids, rss_mib } = await measureMemory(async () => {
      const posted = await mapLimit(conversations, 200, async (conversation, index) => {
        const { run } = await troupe.runs.postMessage(user, conversation.id, { content: `job ${index}` });
        return run.id;
      });
      await done;
      return posted;
    });
    const postedIn = epochMs() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const window = lastEnd - started;
    const finished = (await Promise.all(ids.map((id) => troupe.storage.runs.get(id)))).filter(
      (run): run is Run => run !== undefined,
    );
    const failures = finished.filter((run) => run.status !== 'completed').length;
    const queueWaits = finished.map((run) => ms(run.created_at, run.started_at));
    const result = {
      runs,
      model_latency_ms: LATENCY_MS,
      worker_slots: troupe.config.workerConcurrency,
      wall_ms: round(window),
      posting_ms: round(postedIn),
      runs_per_second: round(runs / (window / 1000)),
      queue_wait_ms: roundSummary(summarize(queueWaits)),
      run_duration_ms: roundSummary(summarize(finished.map((run) => ms(run.created_at, run.finished_at)))),
      cpu_seconds: round((cpu.user + cpu.system) / 1e6),
      rss_mib,
      failed_runs: failures,
      goal: { runs_per_second: 200, met: runs / (window / 1000) >= 200 && failures === 0 },
    };
    progress(
      'providers',
      `throughput: ${result.runs_per_second} runs/s, queue wait p99 ${result.queue_wait_ms.p99} ms, RSS peak ${rss_mib.peak} MiB`,
    );
    return result;
  } finally {
    await env.close();
  }
}

async function fairness(rounds: number, children: number, concurrency: number) {
  const env = await startEmbeddedTroupe({
    scenarios: { fan: fanOutScenario(children), worker: ONE_CALL, single: ONE_CALL },
    limits: { maxActiveChildrenPerRun: children, maxActiveChildrenPerUser: children * 2 },
    config: {
      modelCalls: { ...DEFAULT_MODEL_CALL_SETTINGS, limits: { scripted: { concurrency } } },
    },
  });
  try {
    const { troupe, user: alice } = env;
    await env.createAgent('worker', { model: 'scripted:worker' }, { subagent: true });
    const fan = await env.createAgent('fan', { model: 'scripted:fan', subagents: ['worker'] });
    // User B: a user of their own, with their own agent, project and conversations.
    const bob = await troupe.storage.users.create({ name: 'bob', role: 'member' });
    const single = await troupe.storage.agents.create({
      slug: 'single',
      name: 'single',
      description: 'one model call',
      backend: 'chat',
      is_subagent: false,
      owner_id: bob.id,
      visibility: 'private',
      config: { model: 'scripted:single' },
      status: 'draft',
      delegatable: true,
      delegation_brief: null,
      is_default: false,
    });
    await troupe.storage.access.grant(bob.id, single.id, 'created');
    const workdir = path.join(env.dir, 'bob');
    mkdirSync(workdir);
    const project = await troupe.storage.projects.create({ user_id: bob.id, name: 'Bob', workdir });
    const newConversation = () =>
      troupe.storage.conversations.create({
        user_id: bob.id,
        agent_id: single.id,
        thread_id: newId('thr'),
        project_id: project.id,
        status: 'active',
        title: 'one call',
        metadata: {},
      });
    const parents = await env.createConversations(fan, rounds);
    const bWaits: number[] = [];
    const aWaits: number[] = [];
    progress(
      'providers',
      `fairness: ${rounds} × user A fans out ${children} children, provider limited to ${concurrency} at once`,
    );
    for (const [index, conversation] of parents.entries()) {
      const { run: parent } = await troupe.runs.postMessage(alice, conversation.id, {
        content: `round ${index}`,
      });
      // B starts once A's children crowd the provider's queue.
      for (;;) {
        const kids = await troupe.storage.runs.listChildren(parent.id);
        if (kids.length >= children / 2) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      let parentDone = false;
      const awaited = troupe.runs.await(alice, parent.id, 600_000).then((outcome) => {
        parentDone = true;
        return outcome;
      });
      while (!parentDone) {
        const conversationB = await newConversation();
        const { run } = await troupe.runs.postMessage(bob, conversationB.id, { content: 'one question' });
        const { run: ended } = await troupe.runs.await(bob, run.id, 600_000);
        if (ended.status === 'completed') bWaits.push(ms(ended.created_at, ended.finished_at) - LATENCY_MS);
      }
      const { run: ended } = await awaited;
      if (ended.status !== 'completed') throw new Error(`fan-out parent ${ended.id} ended ${ended.status}`);
      for (const kid of await troupe.storage.runs.listChildren(parent.id))
        aWaits.push(ms(kid.created_at, kid.finished_at) - LATENCY_MS);
    }
    const result = {
      rounds,
      children_per_round: children,
      provider_concurrency: concurrency,
      user_b_runs: bWaits.length,
      user_b_queue_wait_ms: roundSummary(summarize(bWaits)),
      user_a_child_queue_wait_ms: roundSummary(summarize(aWaits)),
    };
    progress(
      'providers',
      `fairness: B waits p50 ${result.user_b_queue_wait_ms.median} ms, p99 ${result.user_b_queue_wait_ms.p99} ms; A's children p50 ${result.user_a_child_queue_wait_ms.median} ms`,
    );
    return result;
  } finally {
    await env.close();
  }
}

await runSuite('providers', async ({ quick }) => ({
  throughput: await throughput(quick ? 200 : 2000),
  fairness: await fairness(quick ? 1 : 3, quick ? 30 : 100, 10),
}));
