import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Run } from '../../core/records/run.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { SLOW, useSubagentWorld } from '../../../test/helpers/runtime/use-subagent-world.js';

const setup = useSubagentWorld();

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
    const { h, user, conversation } = await setup({
      main,
      mainConfig: { tool_approval_mode: 'always_trust' },
    });
    await h.createAgent(
      user,
      'reader',
      { model: 'scripted:reader', tools: ['read_file'] },
      { backend: 'subagent', is_subagent: true },
    );
    await h.createAgent(
      user,
      'sleeper',
      { model: 'scripted:sleeper' },
      { backend: 'subagent', is_subagent: true },
    );
    writeFileSync(
      join(h.dir, 'scenarios', 'reader.yaml'),
      `rules:\n  - steps:\n      - tool_calls: [{ name: read_file, args: { path: shared/brief.txt } }]\n      - text: "reader saw: {{last_tool_result}}"\n`,
    );
    writeFileSync(join(h.dir, 'scenarios', 'sleeper.yaml'), SLOW);

    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'go' });
    const done = await h.runs.await(user, run.id, 20_000);
    expect(done.run.status).toBe('completed');
    const children = await h.storage.runs.listChildren(run.id);
    expect(children).toHaveLength(3);
    const bySlug = new Map<string, Run>();
    for (const child of children) bySlug.set(String(child.input.subagent_slug), child);
    expect(bySlug.get('reader')).toMatchObject({
      status: 'completed',
      output: 'reader saw: brief from the parent',
    });
    expect(bySlug.get('helper')).toMatchObject({ status: 'completed', output: 'done: quick job' });
    expect(bySlug.get('sleeper')?.status).toBe('cancelled');

    const thread = await h.storage.messages.list(conversation.thread_id);
    const awaited = JSON.parse(toolResults(thread, 'subagent_await')[0]?.text ?? '{}') as {
      mode: string;
      runs: { status: string }[];
    };
    expect(awaited.mode).toBe('all');
    expect(awaited.runs.map((entry) => entry.status).sort()).toEqual(['cancelled', 'completed', 'completed']);
    const startPayload = JSON.parse(toolResults(thread, 'subagent_start')[0]?.text ?? '{}') as Record<
      string,
      unknown
    >;
    expect(Object.keys(startPayload)).toEqual([
      'status',
      'run_id',
      'thread_id',
      'subagent_slug',
      'subagent_name',
      'created_by_run_id',
      'run_status',
      'continuing',
      'subagent_thread_relation_id',
      'events_url',
      'result_url',
    ]);
    expect(startPayload).toMatchObject({
      status: 'started',
      created_by_run_id: run.id,
      continuing: false,
      run_status: 'pending',
    });

    // The parent's stream told the story: a subagent_update for each status change of each child.
    const updates = (await h.storage.events.list(run.id, 0, 1000)).filter(
      (event) => event.type === 'subagent_update',
    );
    const sleeper = bySlug.get('sleeper');
    const sleeperStatuses = updates
      .filter((event) => event.payload.run_id === sleeper?.id)
      .map((event) => event.payload.status);
    expect(sleeperStatuses).toContain('cancelled');
    expect(updates.every((event) => event.payload.kind === 'subagent')).toBe(true);

    const panel = await h.runs.listChildRuns(user, conversation.id);
    expect(panel.map((entry) => entry.slug).sort()).toEqual(['helper', 'reader', 'sleeper']);
    expect(panel.find((entry) => entry.slug === 'reader')).toMatchObject({
      description: 'read shared/brief.txt',
      status: 'completed',
    });
    const mallory = await h.createUser('mallory');
    await expect(h.runs.listChildRuns(mallory, conversation.id)).rejects.toMatchObject({
      code: 'conversation_not_found',
    });
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
    const status = JSON.parse(toolResults(thread, 'subagent_status')[0]?.text ?? '{}') as Record<
      string,
      unknown
    >;
    expect(Object.keys(status).sort()).toEqual(
      [
        'error',
        'events_url',
        'progress',
        'result_url',
        'run_id',
        'status',
        'subagent_slug',
        'thread_id',
      ].sort(),
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
    expect(
      childThread.filter((entry) => entry.message.role === 'user').map((entry) => entry.message.content),
    ).toEqual(['count slowly', 'change of plan: stop counting']);
    const thread = await h.storage.messages.list(conversation.thread_id);
    const status = JSON.parse(toolResults(thread, 'subagent_status')[0]?.text ?? '{}') as {
      status: string;
      progress: {
        last_seq: number;
        messages: { seq: number; tool_call_id?: string; kind: string; content: string }[];
      };
      result: { output: string };
    };
    // docs/subagents.md#subagent_status field names, exactly; `result` because the run is terminal.
    expect(Object.keys(status).sort()).toEqual(
      [
        'error',
        'events_url',
        'progress',
        'result',
        'result_url',
        'run_id',
        'status',
        'subagent_slug',
        'thread_id',
        'verification',
      ].sort(),
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
      expect(
        Object.keys(message).every((key) =>
          ['seq', 'message_id', 'tool_call_id', 'kind', 'content'].includes(key),
        ),
      ).toBe(true);
    }
    expect(status.result.output).toBe('steered: change of plan: stop counting');
    expect(status.progress.messages.at(-1)).toMatchObject({
      kind: 'assistant_message',
      content: 'steered: change of plan: stop counting',
    });
    const call = status.progress.messages.find((message) => message.kind === 'tool_call');
    expect(call?.content.startsWith('Calling ls(')).toBe(true);
    expect(call?.tool_call_id).toEqual(expect.any(String));
  });
});
