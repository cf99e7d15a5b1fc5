import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentConfig } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import { createRuntimeHarness, type RuntimeHarness, type RuntimeHarnessOptions } from '../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** A parent that stays `running` for a while, so tests can drive the subagent service as its tools would. */
const PARENT_HOLDS = `rules:\n  - steps:\n      - delay_ms: 20000\n        text: holding\n`;
const QUICK = `rules:\n  - steps:\n      - text: "done: {{input}}"\n`;
const SLOW = `rules:\n  - steps:\n      - delay_ms: 20000\n        text: slow\n`;

async function setup(options: { main?: string; helper?: string; mainConfig?: Partial<AgentConfig>; harness?: RuntimeHarnessOptions } = {}) {
  harness = await createRuntimeHarness({
    scenarios: { main: options.main ?? PARENT_HOLDS, helper: options.helper ?? QUICK },
    ...options.harness,
  });
  const user = await harness.createUser('alice');
  const helper = await harness.createAgent(user, 'helper', { model: 'scripted:helper', tools: ['read_file', 'ls'] }, {
    backend: 'subagent',
    is_subagent: true,
  });
  const main = await harness.createAgent(user, 'main', { model: 'scripted:main', ...options.mainConfig });
  const conversation = await harness.createConversation(user, main);
  return { h: harness, user, helper, main, conversation };
}

/** A start the rules refused, with a text that says why (the model reads it as an error result). */
const refusedWith = (text: string) => ({ kind: 'refused', error: expect.stringContaining(text) as unknown });

async function runningParent(h: RuntimeHarness, userId: string, conversationId: string): Promise<Run> {
  const user = { id: userId, role: 'member' as const };
  const { run } = await h.runs.postMessage(user, conversationId, { content: 'parent' });
  for (let i = 0; i < 200; i++) {
    const current = await h.storage.runs.get(run.id);
    if (current?.status === 'running') return current;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('parent never started');
}

describe('subagent start: busy and idempotency under concurrency', () => {
  it('50 parallel starts on one thread create exactly one run; 49 are busy', async () => {
    const { h, user, helper, conversation } = await setup({ helper: SLOW });
    const parent = await runningParent(h, user.id, conversation.id);
    const first = await h.subagents.start({ creatorRunId: parent.id, userId: user.id, subagent: helper, description: 'first', toolCallId: 'call-0' });
    if (first.kind !== 'started') throw new Error('first start failed');
    await h.runs.cancel(user, first.run.id);
    await h.runs.await(user, first.run.id, 10_000);
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        h.subagents.start({
          creatorRunId: parent.id,
          userId: user.id,
          subagent: helper,
          description: `continue ${i}`,
          threadId: first.run.thread_id,
          toolCallId: `call-${i + 1}`,
        }),
      ),
    );
    const started = outcomes.filter((outcome) => outcome.kind === 'started');
    const busy = outcomes.filter((outcome) => outcome.kind === 'busy');
    expect(started).toHaveLength(1);
    expect(busy).toHaveLength(49);
    const active = started[0]?.kind === 'started' ? started[0].run.id : '';
    for (const outcome of busy) if (outcome.kind === 'busy') expect(outcome.activeRun?.id).toBe(active);
    const runsOnThread = (await h.storage.runs.listChildren(parent.id)).filter((run) => run.thread_id === first.run.thread_id);
    expect(runsOnThread).toHaveLength(2);
    await h.runs.cancel(user, parent.id);
  });

  it('50 parallel replays of one tool call create exactly one run', async () => {
    const { h, user, helper, conversation } = await setup({ helper: SLOW });
    const parent = await runningParent(h, user.id, conversation.id);
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, () =>
        h.subagents.start({ creatorRunId: parent.id, userId: user.id, subagent: helper, description: 'same', toolCallId: 'call-same' }),
      ),
    );
    const ids = new Set(outcomes.map((outcome) => ('run' in outcome ? outcome.run.id : outcome.kind)));
    expect(ids.size).toBe(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'started')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome.kind === 'existing')).toHaveLength(49);
    expect(await h.storage.runs.listChildren(parent.id)).toHaveLength(1);
    expect(await h.storage.subagentThreads.listForParent(conversation.id)).toHaveLength(1);
    await h.runs.cancel(user, parent.id);
  });
});

describe('subagent start: refusals', () => {
  it('refuses a creator that is not running, and a creator that is a subagent run', async () => {
    const { h, user, helper, conversation } = await setup({ main: QUICK });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    await h.runs.await(user, run.id, 10_000);
    await expect(
      h.subagents.start({ creatorRunId: run.id, userId: user.id, subagent: helper, description: 'x', toolCallId: 'c' }),
    ).resolves.toEqual(refusedWith('The parent run has ended; it cannot start subagents'));
    const childRun = await h.storage.runs.insert({ ...run, id: crypto.randomUUID(), request_id: 'r2', run_type: 'subagent', thread_id: 'other' });
    await expect(
      h.subagents.start({ creatorRunId: childRun.id, userId: user.id, subagent: helper, description: 'x', toolCallId: 'c' }),
    ).resolves.toEqual(refusedWith('Subagents cannot start subagents'));
    // Nothing half-created survives a refused start.
    expect(await h.storage.subagentThreads.listForParent(conversation.id)).toEqual([]);
  });

  it('enforces the active-children limit per run and per user', async () => {
    const { h, user, helper, main, conversation } = await setup({ helper: SLOW, harness: { limits: { maxActiveChildrenPerRun: 2, maxActiveChildrenPerUser: 3 } } });
    const parent = await runningParent(h, user.id, conversation.id);
    const start = (call: string, creator = parent.id) =>
      h.subagents.start({ creatorRunId: creator, userId: user.id, subagent: helper, description: call, toolCallId: call });
    await start('a');
    await start('b');
    await expect(start('c')).resolves.toEqual(refusedWith('This run already has 2 active subagent runs (the limit)'));
    const other = await h.createConversation(user, main);
    const otherParent = await runningParent(h, user.id, other.id);
    await start('d', otherParent.id);
    await expect(start('e', otherParent.id)).resolves.toEqual(refusedWith('You already have 3 active subagent runs (the limit)'));
    await h.runs.cancel(user, parent.id);
    await h.runs.cancel(user, otherParent.id);
  });

  it('refuses to continue a thread of another conversation or another subagent', async () => {
    const { h, user, helper, conversation, main } = await setup();
    const parent = await runningParent(h, user.id, conversation.id);
    const first = await h.subagents.start({ creatorRunId: parent.id, userId: user.id, subagent: helper, description: 'x', toolCallId: 'c1' });
    if (!('run' in first)) throw new Error(`unexpected ${first.kind}`);
    const other = await h.createConversation(user, main);
    const otherParent = await runningParent(h, user.id, other.id);
    await expect(
      h.subagents.start({ creatorRunId: otherParent.id, userId: user.id, subagent: helper, description: 'x', threadId: first.run.thread_id, toolCallId: 'c2' }),
    ).resolves.toEqual(refusedWith(`Cannot continue subagent thread ${first.run.thread_id}`));
    await expect(
      h.subagents.start({ creatorRunId: parent.id, userId: user.id, subagent: helper, description: 'x', threadId: 'subagent_made_up', toolCallId: 'c3' }),
    ).resolves.toEqual(refusedWith('Cannot continue subagent thread subagent_made_up'));
    await h.runs.cancel(user, parent.id);
    await h.runs.cancel(user, otherParent.id);
  });
});

describe('ownership of lifecycle tools', () => {
  it('only the creating run may query, await, cancel or steer a child', async () => {
    const { h, user, helper, conversation, main } = await setup({ helper: SLOW });
    const parent = await runningParent(h, user.id, conversation.id);
    const started = await h.subagents.start({ creatorRunId: parent.id, userId: user.id, subagent: helper, description: 'x', toolCallId: 'c1' });
    if (!('run' in started)) throw new Error(`unexpected ${started.kind}`);
    expect((await h.subagents.getOwnedChild(parent.id, user.id, started.run.id))?.run.id).toBe(started.run.id);

    const other = await h.createConversation(user, main);
    const stranger = await runningParent(h, user.id, other.id);
    const mallory = await h.createUser('mallory');
    for (const [creator, userId, runId] of [
      [stranger.id, user.id, started.run.id],
      [parent.id, mallory.id, started.run.id],
      [parent.id, user.id, parent.id],
      [parent.id, user.id, 'no-such-run'],
    ] as const) {
      expect(await h.subagents.getOwnedChild(creator, userId, runId)).toBeUndefined();
    }
    await h.runs.cancel(user, parent.id);
    await h.runs.cancel(user, stranger.id);
  });
});

describe('background subagents through the tools', () => {
  it('starts three in parallel, awaits all, one cancelled, one reads a file the parent wrote', async () => {
    const main = `
rules:
  - steps:
      - tool_calls:
          - { name: write_file, args: { path: shared/brief.txt, content: "brief from the parent" } }
      - tool_calls:
          - { name: subagent_start, args: { subagent_slug: reader, description: "read shared/brief.txt" } }
          - { name: subagent_start, args: { subagent_slug: helper, description: "quick job" } }
          - { name: subagent_start, args: { subagent_slug: sleeper, description: "long job" } }
      - tool_calls:
          - { name: subagent_cancel, args: { run_id: "{{run_id}}" } }
      - tool_calls:
          - { name: subagent_await, args: { run_ids: "{{run_ids}}", mode: all } }
      - text: "all settled"
`;
    const { h, user, conversation } = await setup({ main, mainConfig: { tool_approval_mode: 'always_trust' } });
    await h.createAgent(user, 'reader', { model: 'scripted:reader', tools: ['read_file'] }, { backend: 'subagent', is_subagent: true });
    await h.createAgent(user, 'sleeper', { model: 'scripted:sleeper' }, { backend: 'subagent', is_subagent: true });
    writeFileSync(join(h.dir, 'scenarios', 'reader.yaml'), `rules:\n  - steps:\n      - tool_calls: [{ name: read_file, args: { path: shared/brief.txt } }]\n      - text: "reader saw: {{last_tool_result}}"\n`);
    writeFileSync(join(h.dir, 'scenarios', 'sleeper.yaml'), SLOW);

    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    const done = await h.runs.await(user, run.id, 20_000);
    expect(done.run.status).toBe('completed');
    const children = await h.storage.runs.listChildren(run.id);
    expect(children).toHaveLength(3);
    const bySlug = new Map<string, Run>();
    for (const child of children) bySlug.set(String(child.input.subagent_slug), child);
    expect(bySlug.get('reader')).toMatchObject({ status: 'completed', output: 'reader saw: brief from the parent' });
    expect(bySlug.get('helper')).toMatchObject({ status: 'completed', output: 'done: quick job' });
    expect(bySlug.get('sleeper')?.status).toBe('cancelled');

    const thread = await h.storage.messages.list(conversation.thread_id);
    const awaited = JSON.parse(toolResults(thread, 'subagent_await')[0]?.text ?? '{}') as { mode: string; runs: { status: string }[] };
    expect(awaited.mode).toBe('all');
    expect(awaited.runs.map((entry) => entry.status).sort()).toEqual(['cancelled', 'completed', 'completed']);
    const startPayload = JSON.parse(toolResults(thread, 'subagent_start')[0]?.text ?? '{}') as Record<string, unknown>;
    expect(Object.keys(startPayload)).toEqual([
      'status', 'run_id', 'thread_id', 'subagent_slug', 'subagent_name', 'created_by_run_id', 'run_status', 'continuing',
      'subagent_thread_relation_id', 'events_url', 'result_url',
    ]);
    expect(startPayload).toMatchObject({ status: 'started', created_by_run_id: run.id, continuing: false, run_status: 'pending' });

    // The parent's stream told the story: a subagent_update for each status change of each child.
    const updates = (await h.storage.events.list(run.id, 0, 1000)).filter((event) => event.type === 'subagent_update');
    const sleeper = bySlug.get('sleeper');
    const sleeperStatuses = updates.filter((event) => event.payload.run_id === sleeper?.id).map((event) => event.payload.status);
    expect(sleeperStatuses).toContain('cancelled');
    expect(updates.every((event) => event.payload.kind === 'subagent')).toBe(true);

    const panel = await h.runs.listChildRuns(user, conversation.id);
    expect(panel.map((entry) => entry.slug).sort()).toEqual(['helper', 'reader', 'sleeper']);
    expect(panel.find((entry) => entry.slug === 'reader')).toMatchObject({ description: 'read shared/brief.txt', status: 'completed' });
    const mallory = await h.createUser('mallory');
    await expect(h.runs.listChildRuns(mallory, conversation.id)).rejects.toMatchObject({ code: 'conversation_not_found' });
  });

  it('answers subagent_status of an active child without `result` (only a terminal run has one)', async () => {
    const main = `
rules:
  - steps:
      - tool_calls: [{ name: subagent_start, args: { subagent_slug: helper, description: "take your time" } }]
      - tool_calls: [{ name: subagent_status, args: { run_id: "{{run_id}}" } }]
      - text: "checked"
`;
    const { h, user, conversation } = await setup({ main, helper: SLOW });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    expect((await h.runs.await(user, run.id, 20_000)).run.status).toBe('completed');
    const thread = await h.storage.messages.list(conversation.thread_id);
    const status = JSON.parse(toolResults(thread, 'subagent_status')[0]?.text ?? '{}') as Record<string, unknown>;
    expect(Object.keys(status).sort()).toEqual(
      ['error', 'events_url', 'progress', 'result_url', 'run_id', 'status', 'subagent_slug', 'thread_id'].sort(),
    );
    expect(['pending', 'running']).toContain(status.status);
    expect(Object.keys(status.progress as object).sort()).toEqual(['last_seq', 'messages']);
    expect((status.progress as { messages: unknown[] }).messages).toEqual([]);
  });

  it('reports status with readable progress and steers a running child', async () => {
    const main = `
rules:
  - steps:
      - tool_calls: [{ name: subagent_start, args: { subagent_slug: helper, description: "count slowly" } }]
      - tool_calls: [{ name: subagent_steer, args: { run_id: "{{run_id}}", message: "change of plan: stop counting" } }]
      - tool_calls: [{ name: subagent_await, args: { run_id: "{{run_id}}" } }]
      - tool_calls: [{ name: subagent_status, args: { run_id: "{{run_id}}" } }]
      - text: "finished"
`;
    const helper = `
rules:
  - when: { contains: change of plan }
    steps:
      - text: "steered: {{input}}"
  - steps:
      - delay_ms: 400
        tool_calls: [{ name: ls, args: {} }]
      - text: "counted"
`;
    const { h, user, conversation } = await setup({ main, helper });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    expect((await h.runs.await(user, run.id, 20_000)).run.status).toBe('completed');
    const [child] = await h.storage.runs.listChildren(run.id);
    expect(child?.output).toBe('steered: change of plan: stop counting');
    const childThread = await h.storage.messages.list(child?.thread_id ?? '');
    expect(childThread.filter((entry) => entry.message.role === 'user').map((entry) => entry.message.content)).toEqual([
      'count slowly',
      'change of plan: stop counting',
    ]);
    const thread = await h.storage.messages.list(conversation.thread_id);
    const status = JSON.parse(toolResults(thread, 'subagent_status')[0]?.text ?? '{}') as {
      status: string;
      progress: { last_seq: number; messages: { seq: number; tool_call_id?: string; kind: string; content: string }[] };
      result: { output: string };
    };
    // Yuxi §3.3 field names, exactly; `result` because the run is terminal.
    expect(Object.keys(status).sort()).toEqual(
      ['error', 'events_url', 'progress', 'result', 'result_url', 'run_id', 'status', 'subagent_slug', 'thread_id'].sort(),
    );
    expect(status).toMatchObject({
      status: 'completed',
      run_id: child?.id,
      thread_id: child?.thread_id,
      subagent_slug: 'helper',
      error: null,
      events_url: `/api/agent/runs/${child?.id ?? ''}/events`,
      result_url: `/api/agent/runs/${child?.id ?? ''}/result`,
    });
    expect(Object.keys(status.progress).sort()).toEqual(['last_seq', 'messages']);
    expect(status.progress.last_seq).toBeGreaterThan(0);
    for (const message of status.progress.messages) {
      expect(Object.keys(message).every((key) => ['seq', 'message_id', 'tool_call_id', 'kind', 'content'].includes(key))).toBe(true);
    }
    expect(status.result.output).toBe('steered: change of plan: stop counting');
    expect(status.progress.messages.at(-1)).toMatchObject({ kind: 'assistant_message', content: 'steered: change of plan: stop counting' });
    const call = status.progress.messages.find((message) => message.kind === 'tool_call');
    expect(call?.content.startsWith('Calling ls(')).toBe(true);
    expect(call?.tool_call_id).toEqual(expect.any(String));
  });
});

describe('the execution tree', () => {
  const BACKGROUND = `rules:\n  - steps:\n      - tool_calls: [{ name: subagent_start, args: { subagent_slug: helper, description: "background" } }]\n      - text: "parent done"\n`;

  it('closes still-running children when the parent run ends', async () => {
    const { h, user, conversation } = await setup({ main: BACKGROUND, helper: SLOW });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    expect((await h.runs.await(user, run.id, 10_000)).run.status).toBe('completed');
    const [child] = await h.storage.runs.listChildren(run.id);
    const closed = await h.runs.await(user, child?.id ?? '', 10_000);
    expect(closed.run.status).toBe('cancelled');
    expect(closed.run.error?.type).toBe('execution_tree_closed');
  });

  it('keeps background children with keep_background_runs until the next run of the conversation ends', async () => {
    const { h, user, conversation } = await setup({ main: BACKGROUND, helper: SLOW, mainConfig: { keep_background_runs: true } });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    await h.runs.await(user, run.id, 10_000);
    const [child] = await h.storage.runs.listChildren(run.id);
    expect(['pending', 'running']).toContain((await h.storage.runs.get(child?.id ?? ''))?.status);
    const next = await h.runs.postMessage(user, conversation.id, { content: 'again' });
    await h.runs.await(user, next.run.id, 10_000);
    const closed = await h.runs.await(user, child?.id ?? '', 10_000);
    expect(closed.run.status).toBe('cancelled');
    expect(closed.run.error?.type).toBe('execution_tree_closed');
    // Cleanup: the second turn's own background child.
    for (const leftover of await h.storage.runs.listChildren(next.run.id)) await h.runs.cancel(user, leftover.id);
  });
});
