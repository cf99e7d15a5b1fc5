/**
 * Benchmark 1 and 2: one `task` dispatch (main agent → subagent → result → main agent's answer), Troupe in
 * embedded mode vs deepagents, in one process. Samples are taken in interleaved rounds so that machine noise
 * falls on every contender alike; one instrumented pass afterwards counts SQL statements and samples the CPU.
 */
import path from 'node:path';
import type { EventBus } from '../../src/core/ports/event-bus.js';
import type { RunEvent } from '../../src/core/records/run-event.js';
import { profileCpu, type CpuBreakdown } from '../lib/cpu-profile.js';
import { startDeepAgentsProcess } from '../lib/deepagents-remote.js';
import { sqlSummary } from '../lib/sql-summary.js';
import {
  expectedAnswer,
  HELPER_CONFIG,
  HELPER_SCENARIO,
  MAIN_CONFIG,
  MAIN_SCENARIO,
  QUICK_SEQUENTIAL_PLAN,
  SEQUENTIAL_PLAN,
} from '../lib/dispatch-scenario.js';
import { startEmbeddedTroupe } from '../lib/embedded.js';
import { startSqliteProbe } from '../lib/sqlite-probe.js';
import { round, roundSummary, summarize, type Summary } from '../lib/stats.js';
import { collectGarbage, progress, runSuite } from '../lib/suite.js';

type Kind = 'task' | 'plain';

interface Sample {
  wall: number;
  cpu: number;
  /** Troupe only: from the parent's `task` tool_call event to its tool_result event. */
  span?: number;
  events?: number;
}

interface SampleSet {
  wall: Summary;
  cpu_ms: Summary;
  task_span?: Summary;
  events_per_run?: number;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

function summarizeSamples(samples: Sample[]): SampleSet {
  const spans = samples.map((sample) => sample.span).filter((span): span is number => span !== undefined);
  const events = samples
    .map((sample) => sample.events)
    .filter((count): count is number => count !== undefined);
  return {
    wall: roundSummary(summarize(samples.map((sample) => sample.wall))),
    cpu_ms: roundSummary(summarize(samples.map((sample) => sample.cpu))),
    ...(spans.length > 0 ? { task_span: roundSummary(summarize(spans)) } : {}),
    ...(events.length > 0
      ? { events_per_run: round(events.reduce((a, b) => a + b, 0) / events.length) }
      : {}),
  };
}

/** Sees every event published on the bus (a wrapper around `publish`): counts and `task` span marks. */
function tapBus(bus: EventBus) {
  const original = bus.publish.bind(bus);
  const state = { events: 0, types: new Map<string, number>(), taskCall: 0, taskResult: 0 };
  bus.publish = (event: RunEvent) => {
    state.events += 1;
    state.types.set(event.type, (state.types.get(event.type) ?? 0) + 1);
    const name = event.type === 'tool_call' || event.type === 'tool_result' ? event.payload.name : undefined;
    if (name === 'task' && event.type === 'tool_call') state.taskCall = performance.now();
    else if (name === 'task' && event.type === 'tool_result') state.taskResult = performance.now();
    return original(event);
  };
  return state;
}

await runSuite('dispatch', async ({ quick }) => {
  const plan = quick
    ? { ...QUICK_SEQUENTIAL_PLAN, instrumented: 10 }
    : { ...SEQUENTIAL_PLAN, instrumented: 60 };
  const env = await startEmbeddedTroupe({ scenarios: { main: MAIN_SCENARIO, helper: HELPER_SCENARIO } });
  const { troupe, user } = env;
  await env.createAgent('helper', HELPER_CONFIG, { subagent: true });
  const main = await env.createAgent('main', MAIN_CONFIG);
  const needed = 2 * plan.warmup + plan.rounds * (plan.task + plan.plain) + 2 * plan.instrumented;
  const conversations = await env.createConversations(main, needed);
  let nextConversation = 0;
  const tap = tapBus(troupe.bus);

  let sequence = 0;
  async function troupeOnce(kind: Kind): Promise<Sample> {
    const conversation = conversations[nextConversation++];
    if (!conversation) throw new Error('out of pre-created conversations');
    const input = kind === 'plain' ? `plain question ${sequence++}` : `question ${sequence++}`;
    const eventsBefore = tap.events;
    const cpu = process.cpuUsage();
    const started = performance.now();
    const { run } = await troupe.runs.postMessage(user, conversation.id, { content: input });
    const done = await troupe.runs.await(user, run.id, 60_000);
    const wall = performance.now() - started;
    const cpuUsed = cpuMs(cpu);
    const expected = expectedAnswer(kind, input);
    if (done.run.status !== 'completed' || !done.run.output?.includes(expected)) {
      throw new Error(
        `Troupe run ${run.id} ended ${done.run.status}: ${JSON.stringify(done.run.error ?? done.run.output)}`,
      );
    }
    return {
      wall,
      cpu: cpuUsed,
      events: tap.events - eventsBefore,
      ...(kind === 'task' ? { span: tap.taskResult - tap.taskCall } : {}),
    };
  }

  // deepagents plays in a process of its own (bench/deepagents-process.ts says why), interleaved with Troupe.
  const deep = await startDeepAgentsProcess(path.join(env.dir, 'langgraph-checkpoints.db'));
  const deepKinds = ['none', 'memory', 'sqlite'] as const;
  const contenders: { name: string; once: (kind: Kind) => Promise<Sample> }[] = [
    { name: 'troupe', once: troupeOnce },
    ...deepKinds.map((side) => ({
      name: `deepagents_${side}`,
      once: (kind: Kind) => deep.once(side, kind),
    })),
  ];
  const samples = new Map<string, Sample[]>();
  const record = (key: string, sample: Sample) => {
    const list = samples.get(key) ?? [];
    list.push(sample);
    samples.set(key, list);
  };

  progress('dispatch', `warm-up: ${plan.warmup} dispatches and ${plan.warmup} plain runs per contender`);
  for (const contender of contenders) {
    for (let i = 0; i < plan.warmup; i++) await contender.once('task');
    for (let i = 0; i < plan.warmup; i++) await contender.once('plain');
  }
  for (let roundIndex = 0; roundIndex < plan.rounds; roundIndex++) {
    for (const contender of contenders) {
      collectGarbage();
      for (let i = 0; i < plan.task; i++) record(`${contender.name}:task`, await contender.once('task'));
    }
    for (const contender of contenders) {
      collectGarbage();
      for (let i = 0; i < plan.plain; i++) record(`${contender.name}:plain`, await contender.once('plain'));
    }
    progress('dispatch', `round ${roundIndex + 1}/${plan.rounds} done`);
  }

  // Instrumented pass: SQL statements and SQLite time per run, CPU profile of the dispatches.
  collectGarbage();
  const probe = startSqliteProbe();
  const typesBefore = new Map(tap.types);
  const { breakdown } = await profileCpu(async () => {
    for (let i = 0; i < plan.instrumented; i++) await troupeOnce('task');
  });
  const troupeTaskSql = sqlSummary(probe.snapshot(), plan.instrumented);
  const eventTypes: Record<string, number> = {};
  for (const [type, count] of tap.types)
    eventTypes[type] = round((count - (typesBefore.get(type) ?? 0)) / plan.instrumented);
  probe.reset();
  for (let i = 0; i < plan.instrumented; i++) await troupeOnce('plain');
  const troupePlainSql = sqlSummary(probe.snapshot(), plan.instrumented);
  probe.stop();
  const deepProfile = await deep.profile('sqlite', plan.instrumented);

  const set = (key: string): SampleSet => summarizeSamples(samples.get(key) ?? []);
  const troupeTask = set('troupe:task');
  const troupePlain = set('troupe:plain');
  const deepSets: Record<string, { task: SampleSet; plain: SampleSet }> = {};
  const ratios: Record<string, { wall_median: number; cpu_median: number }> = {};
  for (const side of deepKinds) {
    const task = set(`deepagents_${side}:task`);
    deepSets[side] = { task, plain: set(`deepagents_${side}:plain`) };
    ratios[`troupe/deepagents_${side}`] = {
      wall_median: round(troupeTask.wall.median / task.wall.median),
      cpu_median: round(troupeTask.cpu_ms.median / task.cpu_ms.median),
    };
  }
  await deep.close();
  await env.close();

  const cpuShares = (profile: CpuBreakdown) => ({
    total_ms_per_run: round(profile.total_ms / plan.instrumented),
    categories: profile.categories.map((entry) => ({
      category: entry.category,
      ms_per_run: round(entry.ms / plan.instrumented),
      share: round(entry.share),
    })),
    top_functions: profile.top_functions.map((entry) => ({
      function: entry.category,
      ms_per_run: round(entry.ms / plan.instrumented),
      share: round(entry.share),
    })),
  });
  return {
    plan,
    troupe: {
      task: troupeTask,
      plain: troupePlain,
      dispatch_marginal_ms: round(troupeTask.wall.median - troupePlain.wall.median),
      goal: { target_median_ms: 5, median_ms: troupeTask.wall.median, met: troupeTask.wall.median <= 5 },
      events_per_dispatch_by_type: eventTypes,
      sql_per_dispatch: troupeTaskSql,
      sql_per_plain_run: troupePlainSql,
      cpu_profile: cpuShares(breakdown),
    },
    deepagents: {
      version: deep.version,
      process: 'its own (LangGraph turns on promise hooks process-wide)',
      ...deepSets,
      sql_per_dispatch_sqlite_saver: deepProfile.sql,
      cpu_profile_sqlite_saver: cpuShares(deepProfile.breakdown),
    },
    ratios,
  };
});
