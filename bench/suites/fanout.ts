/**
 * Benchmark 3: 10 parents × 100 children at once (limits raised to 100 children per run, 1000 per user),
 * embedded mode, with 100 SSE subscribers (10 per parent) in another process over loopback HTTP.
 * Reports wall time, peak RSS, events per second, and SSE delivery latency (publish on the in-process bus →
 * frame parsed by the subscriber; both stamped with epoch-based performance clocks).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunEvent } from '../../src/core/records/run-event.js';
import type { Run } from '../../src/core/records/run.js';
import { listen } from '../../src/create-troupe.js';
import { exited, readLines, spawnBenchScript, stopChild } from '../lib/child.js';
import { startEmbeddedTroupe } from '../lib/embedded.js';
import { epochMs, round, roundSummary, summarize } from '../lib/stats.js';
import { collectGarbage, progress, runSuite } from '../lib/suite.js';
import type { StreamRecord } from './sse-clients.js';

function parentScenario(children: number): string {
  return JSON.stringify({
    description:
      'Fan-out parent: a short pause (so SSE subscribers attach), N background children, await all.',
    rules: [
      {
        steps: [
          {
            text: 'Planning the fan-out.',
            tool_calls: [{ name: 'write_file', args: { path: 'gate.txt', content: 'go' } }],
          },
          {
            tool_calls: Array.from({ length: children }, (_, index) => ({
              name: 'subagent_start',
              args: { subagent_slug: 'worker', description: `Part ${index + 1} of {{input}}` },
            })),
          },
          { tool_calls: [{ name: 'subagent_await', args: { run_ids: '{{run_ids}}', mode: 'all' } }] },
          { text: `All ${children} parts are done.` },
        ],
      },
    ],
  });
}

const WORKER_SCENARIO = JSON.stringify({ rules: [{ steps: [{ text: 'Worker result for {{input}}' }] }] });

await runSuite('fanout', async ({ quick }) => {
  const parents = quick ? 3 : 10;
  const children = quick ? 20 : 100;
  const subscribersPerParent = quick ? 3 : 10;
  const workerConcurrency = parents + children;
  const env = await startEmbeddedTroupe({
    scenarios: { parent: parentScenario(children), worker: WORKER_SCENARIO },
    limits: { maxActiveChildrenPerRun: 100, maxActiveChildrenPerUser: 1000 },
    // Every run may do work at once, so the bench measures the runtime rather than a slot limit.
    workerConcurrency,
  });
  const { troupe, user } = env;
  await env.createAgent('worker', { model: 'scripted:worker', tools: ['read_file'] }, { subagent: true });
  const parentAgent = await env.createAgent('parent', {
    model: 'scripted:parent',
    tools: ['write_file'],
    subagents: ['worker'],
    // `default`: the first write_file waits for an approval, which the bench gives once every subscriber is in.
    tool_approval_mode: 'default',
  });
  const conversations = await env.createConversations(parentAgent, parents);
  const server = await listen(troupe);
  const { token } = await troupe.auth.issueToken(user.id, 'bench');

  // Publish times of every event, and the first/last marks of the fan-out window.
  const published = new Map<string, number>();
  let firstStart = Number.POSITIVE_INFINITY;
  let lastParentEnd = 0;
  let eventsInWindow = 0;
  const parentIds = new Set<string>();
  const original = troupe.bus.publish.bind(troupe.bus);
  troupe.bus.publish = (event: RunEvent) => {
    const at = epochMs();
    published.set(`${event.run_id}:${event.seq}`, at);
    eventsInWindow += 1;
    if (event.type === 'tool_call' && event.payload.name === 'subagent_start')
      firstStart = Math.min(firstStart, at);
    if (event.type === 'end' && parentIds.has(event.run_id)) lastParentEnd = Math.max(lastParentEnd, at);
    return original(event);
  };

  const dir = env.dir;
  const sseOut = path.join(dir, 'sse-records.json');
  const clients = spawnBenchScript('suites/sse-clients.ts', ['--out', sseOut]);
  const clientLines = readLines(clients);
  await clientLines.waitFor((line) => line === 'ready');

  progress(
    'fanout',
    `${parents} parents × ${children} children, ${parents * subscribersPerParent} SSE subscribers`,
  );
  const started = await Promise.all(
    conversations.map((conversation, index) =>
      troupe.runs.postMessage(user, conversation.id, { content: `fan-out job ${index + 1}` }),
    ),
  );
  const runIds = started.map(({ run }) => run.id);
  for (const id of runIds) parentIds.add(id);
  // Gate: every parent parks on its write_file approval, the subscribers attach, then all are approved at once.
  const approvals = await Promise.all(
    runIds.map(async (runId) => {
      for (;;) {
        const approvals = await troupe.runs.listApprovals(user, runId);
        const pending = approvals.find((approval) => approval.status === 'pending');
        if (pending) return { runId, toolCallId: pending.tool_call_id };
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }),
  );
  clients.stdin?.write(
    `${JSON.stringify({ url: server.url, token, runs: runIds, perRun: subscribersPerParent })}\n`,
  );
  await clientLines.waitFor((line) => line === 'connected', 120_000);

  collectGarbage();
  const baselineRss = process.memoryUsage().rss;
  let peakRss = baselineRss;
  let peakHeap = process.memoryUsage().heapUsed;
  const sampler = setInterval(() => {
    const usage = process.memoryUsage();
    peakRss = Math.max(peakRss, usage.rss);
    peakHeap = Math.max(peakHeap, usage.heapUsed);
  }, 20);
  eventsInWindow = 0;
  const startedAt = epochMs();
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    approvals.map(({ runId, toolCallId }) =>
      troupe.runs.decideApproval(user, runId, toolCallId, { decision: 'approve' }),
    ),
  );
  const finished = await Promise.all(runIds.map((id) => troupe.runs.await(user, id, 600_000)));
  const endedAt = epochMs();
  const cpuUsed = process.cpuUsage(cpuBefore);
  const eventsPublished = eventsInWindow;
  clearInterval(sampler);
  const clientExit = await exited(clients);
  if (clientExit !== 0) throw new Error(`SSE client process exited with ${clientExit}`);
  const records = JSON.parse(readFileSync(sseOut, 'utf8')) as StreamRecord[];

  // Integrity: every run completed, every run's events gapless 1..n ending with `end`.
  const failures: string[] = [];
  const allRuns: Run[] = [];
  for (const { run } of finished) {
    allRuns.push(run);
    if (run.status !== 'completed') failures.push(`parent ${run.id} ${run.status}`);
    const kids = await troupe.storage.runs.listChildren(run.id);
    if (kids.length !== children) failures.push(`parent ${run.id} has ${kids.length} children`);
    for (const kid of kids) {
      allRuns.push(kid);
      if (kid.status !== 'completed') failures.push(`child ${kid.id} ${kid.status}`);
    }
  }
  const storedCount = new Map<string, number>();
  let storedEvents = 0;
  for (const run of allRuns) {
    const events: RunEvent[] = [];
    for (let after = 0; ;) {
      const page = await troupe.storage.events.list(run.id, after, 1000);
      events.push(...page);
      if (page.length < 1000) break;
      after = page.at(-1)?.seq ?? after;
    }
    storedEvents += events.length;
    storedCount.set(run.id, events.length);
    if (!events.every((event, index) => event.seq === index + 1))
      failures.push(`run ${run.id} events not gapless`);
    if (events.at(-1)?.type !== 'end') failures.push(`run ${run.id} does not end with end`);
  }

  // SSE: frames received = stored events (none lost), latency for events published after the stream connected.
  const latencies: number[] = [];
  let framesReceived = 0;
  let framesLost = 0;
  let backlogFrames = 0;
  for (const record of records) {
    if (record.error || record.status !== 200)
      failures.push(`stream of ${record.run_id}: ${record.status} ${record.error ?? ''}`);
    const expected = storedCount.get(record.run_id) ?? 0;
    framesReceived += record.frames.length;
    const seqs = record.frames.map(([seq]) => seq);
    if (seqs.length !== expected || !seqs.every((seq, index) => seq === index + 1))
      framesLost += Math.max(0, expected - seqs.length) || 1;
    for (const [seq, receivedAt] of record.frames) {
      const publishedAt = published.get(`${record.run_id}:${seq}`);
      if (publishedAt === undefined || publishedAt < record.connected_at) {
        backlogFrames += 1;
        continue;
      }
      latencies.push(receivedAt - publishedAt);
    }
  }
  if (framesLost > 0) failures.push(`${framesLost} SSE streams missed or reordered events`);

  await stopChild(clients);
  await server.close();
  await env.close();

  const windowMs = lastParentEnd - firstStart;
  const mib = (bytes: number) => round(bytes / 1024 ** 2);
  return {
    parents,
    children_per_parent: children,
    runs: allRuns.length,
    worker_concurrency: workerConcurrency,
    wall_ms_from_gate_release: round(endedAt - startedAt),
    fanout_window_ms: round(windowMs),
    events_published: eventsPublished,
    events_stored: storedEvents,
    events_per_second: round(eventsPublished / ((endedAt - startedAt) / 1000)),
    events_per_second_in_window: round(eventsPublished / (windowMs / 1000)),
    runs_per_second_in_window: round(allRuns.length / (windowMs / 1000)),
    cpu_seconds: round((cpuUsed.user + cpuUsed.system) / 1e6),
    rss_mib: { baseline: mib(baselineRss), peak: mib(peakRss), growth: mib(peakRss - baselineRss) },
    heap_used_peak_mib: mib(peakHeap),
    sse: {
      subscribers: records.length,
      frames_received: framesReceived,
      frames_measured: latencies.length,
      backlog_frames_excluded: backlogFrames,
      streams_with_lost_events: framesLost,
      latency_ms: roundSummary(summarize(latencies)),
    },
    failures: failures.slice(0, 20),
    ok: failures.length === 0,
  };
});
