import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { RunEvent } from '../core/records/run-event.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../test/helpers/create-runtime-harness.js';
import { defineTool } from './tools/troupe-tool.js';

const ECHO = `
rules:
  - steps:
      - text: "Writing."
        tool_calls:
          - name: write_file
            args: { path: out.txt, content: "{{input}}" }
      - tool_calls:
          - name: read_file
            args: { path: out.txt }
      - text: "Read back: {{last_tool_result}}"
`;

const SLOW = `
rules:
  - steps:
      - delay_ms: 20000
        chunk_size: 4
        text: "${'slow text '.repeat(40)}"
`;

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function collect(iterable: AsyncIterable<RunEvent>): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

async function setup(scenario: string, extra: Parameters<typeof createRuntimeHarness>[0] = {}) {
  harness = await createRuntimeHarness({ scenarios: { main: scenario }, ...extra });
  const user = await harness.createUser('alice');
  const agent = await harness.createAgent(user, 'main', { model: 'scripted:main', tool_approval_mode: 'always_trust' });
  const conversation = await harness.createConversation(user, agent);
  return { h: harness, user, agent, conversation };
}

describe('run service: a conversation turn end to end', () => {
  it('runs the loop, checkpoints each step and streams every event in order', async () => {
    const { h, user, conversation } = await setup(ECHO);
    const started = await h.runs.postMessage(user, conversation.id, { content: 'hello troupe' });
    expect(started.status).toBe('started');
    const events = await collect(await h.runs.streamEvents(user, started.run.id, 0, new AbortController().signal));
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('metadata');
    expect(types.at(-1)).toBe('end');
    expect(types.filter((type) => type === 'step')).toHaveLength(3);
    expect(types.filter((type) => type === 'tool_call')).toHaveLength(2);

    const result = await h.runs.getResult(user, started.run.id);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Read back: hello troupe');
    expect(result.usage?.model_calls).toBe(3);
    expect(result.usage?.total_tokens).toBeGreaterThan(0);

    const thread = await h.storage.messages.list(conversation.thread_id);
    expect(thread.map((entry) => [entry.step, entry.message.role])).toEqual([
      [0, 'user'],
      [1, 'assistant'],
      [1, 'tool'],
      [2, 'assistant'],
      [2, 'tool'],
      [3, 'assistant'],
    ]);
  });

  it('resumes a stream after a given seq without gaps or repeats', async () => {
    const { h, user, conversation } = await setup(ECHO);
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    const all = await collect(await h.runs.streamEvents(user, run.id, 0, new AbortController().signal));
    const tail = await collect(await h.runs.streamEvents(user, run.id, 3, new AbortController().signal));
    expect(tail.map((event) => event.seq)).toEqual(all.slice(3).map((event) => event.seq));
  });

  it('replays a request_id as `existing`, even under 20 concurrent identical requests', async () => {
    const { h, user, conversation } = await setup(ECHO);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => h.runs.postMessage(user, conversation.id, { content: 'once', request_id: 'req-fixed' })),
    );
    expect(new Set(results.map((result) => result.run.id)).size).toBe(1);
    expect(results.filter((result) => result.status === 'started')).toHaveLength(1);
    expect(results.filter((result) => result.status === 'existing')).toHaveLength(19);
    const userMessages = (await h.storage.messages.list(conversation.thread_id)).filter((entry) => entry.step === 0);
    expect(userMessages).toHaveLength(1);
  });

  it('refuses a second message while a run is active and persists nothing for it', async () => {
    const { h, user, conversation } = await setup(SLOW);
    const first = await h.runs.postMessage(user, conversation.id, { content: 'one' });
    const before = await h.storage.messages.list(conversation.thread_id);
    await expect(h.runs.postMessage(user, conversation.id, { content: 'two' })).rejects.toMatchObject({
      code: 'run_busy',
      details: { active_run_id: first.run.id },
    });
    expect(await h.storage.messages.list(conversation.thread_id)).toHaveLength(before.length);
    expect(await h.storage.runs.listByConversation(conversation.id)).toHaveLength(1);
  });

  it('hides another user\'s runs and conversations as not found', async () => {
    const { h, user, conversation } = await setup(ECHO);
    const mallory = await h.createUser('mallory');
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'mine' });
    await expect(h.runs.getRun(mallory, run.id)).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(h.runs.getResult(mallory, run.id)).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(h.runs.cancel(mallory, run.id)).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(h.runs.await(mallory, run.id, 10)).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(h.runs.streamEvents(mallory, run.id, 0, new AbortController().signal)).rejects.toMatchObject({
      code: 'run_not_found',
    });
    await expect(h.runs.postMessage(mallory, conversation.id, { content: 'x' })).rejects.toMatchObject({
      code: 'conversation_not_found',
    });
    await expect(h.runs.listRunsOfConversation(mallory, conversation.id)).rejects.toMatchObject({
      code: 'conversation_not_found',
    });
  });
});

describe('run service: cancellation', () => {
  it('cancels a never-started run at once, with its end event', async () => {
    const { h, user, conversation } = await setup(ECHO, { startWorker: false });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    const cancelled = await h.runs.cancel(user, run.id);
    expect(cancelled.status).toBe('cancelled');
    expect(cancelled.error?.type).toBe('cancelled');
    const events = await h.storage.events.list(run.id, 0, 100);
    expect(events.map((event) => event.type)).toEqual(['end']);
  });

  it('aborts the model call of a running run: running → cancel_requested → cancelled', async () => {
    const { h, user, conversation } = await setup(SLOW);
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    const stream = await h.runs.streamEvents(user, run.id, 0, new AbortController().signal);
    const seen: RunEvent[] = [];
    for await (const event of stream) {
      seen.push(event);
      if (event.type === 'message_delta' && seen.filter((e) => e.type === 'message_delta').length === 1) {
        const requested = await h.runs.cancel(user, run.id);
        expect(requested.status).toBe('cancel_requested');
      }
    }
    expect(seen.at(-1)).toMatchObject({ type: 'end', payload: { status: 'cancelled' } });
    const final = await h.runs.getRun(user, run.id);
    expect(final.status).toBe('cancelled');
    // The 20 s step was cut short: far less than the whole text was streamed.
    const streamed = seen.filter((e) => e.type === 'message_delta').map((e) => String(e.payload.text)).join('');
    expect(streamed.length).toBeLessThan(400);
  });

  it('aborts tools in flight through their AbortSignal', async () => {
    let toolSawAbort = false;
    const block = defineTool({
      name: 'block',
      description: 'waits until aborted',
      inputSchema: z.object({}),
      execute: (_input, context) =>
        new Promise((_resolve, reject) => {
          context.abortSignal.addEventListener('abort', () => {
            toolSawAbort = true;
            reject(new Error('aborted'));
          });
        }),
    });
    const { h, user, conversation } = await setup(`rules:\n  - steps:\n      - tool_calls: [{ name: block, args: {} }]\n      - text: never\n`, {
      extraTools: [block],
    });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    for await (const event of await h.runs.streamEvents(user, run.id, 0, new AbortController().signal)) {
      if (event.type === 'tool_call') await h.runs.cancel(user, run.id);
    }
    expect(toolSawAbort).toBe(true);
    expect((await h.runs.getRun(user, run.id)).status).toBe('cancelled');
  });

  it('closes the whole subtree when a run is cancelled', async () => {
    const { h, user, conversation, agent } = await setup(SLOW, { startWorker: false });
    const { run: parent } = await h.runs.postMessage(user, conversation.id, { content: 'parent' });
    const childConversation = await h.createConversation(user, agent);
    const child = await h.storage.runs.insert({
      ...parent,
      id: crypto.randomUUID(),
      thread_id: childConversation.thread_id,
      conversation_id: childConversation.id,
      request_id: 'child-req',
      run_type: 'subagent',
      created_by_run_id: parent.id,
      depth: 1,
    });
    await h.runs.cancel(user, parent.id);
    expect((await h.storage.runs.get(child.id))?.status).toBe('cancelled');
    expect((await h.storage.runs.get(child.id))?.error?.type).toBe('execution_tree_closed');
  });
});

describe('run service: waiting', () => {
  it('awaits the terminal event from the bus', async () => {
    const { h, user, conversation } = await setup(ECHO);
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'wait for me' });
    const awaited = await h.runs.await(user, run.id, 10_000);
    expect(awaited.wait_timed_out).toBe(false);
    expect(awaited.run.status).toBe('completed');
  });

  it('answers a timeout with the current snapshot and wait_timed_out', async () => {
    const { h, user, conversation } = await setup(SLOW);
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    const awaited = await h.runs.await(user, run.id, 50);
    expect(awaited.wait_timed_out).toBe(true);
    expect(['pending', 'running']).toContain(awaited.run.status);
    await h.runs.cancel(user, run.id);
  });
});

describe('run service: loop rules', () => {
  it('runs the parallel tool calls of one step concurrently', async () => {
    let inFlight = 0;
    let peak = 0;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const meet = defineTool({
      name: 'meet',
      description: 'waits until both calls are in flight',
      inputSchema: z.object({ who: z.string() }),
      async execute({ who }) {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        if (inFlight === 2) release();
        await gate;
        inFlight -= 1;
        return `met ${who}`;
      },
    });
    const scenario = `rules:\n  - steps:\n      - tool_calls:\n          - { name: meet, args: { who: a } }\n          - { name: meet, args: { who: b } }\n      - text: done\n`;
    const { h, user, conversation } = await setup(scenario, { extraTools: [meet] });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    const awaited = await h.runs.await(user, run.id, 10_000);
    expect(awaited.run.status).toBe('completed');
    expect(peak).toBe(2);
  });

  it('stops at max_steps as interrupted', async () => {
    const loop = `rules:\n  - steps:\n${'      - tool_calls: [{ name: ls, args: {} }]\n'.repeat(5)}`;
    const { h, user, conversation } = await setup(loop, { limits: { maxSteps: 2 } });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    const awaited = await h.runs.await(user, run.id, 10_000);
    expect(awaited.run.status).toBe('interrupted');
    expect(awaited.run.error?.type).toBe('max_steps');
  });

  it('fails a run whose scripted tool call does not match the tool schema', async () => {
    const bad = `rules:\n  - steps:\n      - tool_calls: [{ name: read_file, args: { wrong: 1 } }]\n`;
    const { h, user, conversation } = await setup(bad);
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    const awaited = await h.runs.await(user, run.id, 10_000);
    expect(awaited.run.status).toBe('failed');
    expect(awaited.run.error?.type).toBe('scenario_invalid');
    const types = (await h.storage.events.list(run.id, 0, 100)).map((event) => event.type);
    expect(types.slice(-2)).toEqual(['error', 'end']);
  });

  it('runs middleware around model and tool calls, outermost first', async () => {
    const order: string[] = [];
    const { h, user, conversation } = await setup(ECHO, {
      middleware: () => Promise.resolve([
        {
          name: 'outer',
          async wrapModelCall(request, next) {
            order.push('outer-model');
            return next({ ...request, system: `${request.system}\nouter section` });
          },
          async wrapToolCall(request, next) {
            order.push(`outer-tool:${request.toolName}`);
            return next(request);
          },
        },
        {
          name: 'inner',
          async wrapModelCall(request, next) {
            order.push('inner-model');
            expect(request.system).toContain('outer section');
            return next(request);
          },
        },
      ]),
    });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'x' });
    expect((await h.runs.await(user, run.id, 10_000)).run.status).toBe('completed');
    expect(order.slice(0, 3)).toEqual(['outer-model', 'inner-model', 'outer-tool:write_file']);
  });
});

describe('run service: leases', () => {
  async function crashMidRun(policy: 'resume' | 'fail') {
    const { h, user, conversation } = await setup(ECHO, { startWorker: false, leaseMs: 60_000, leasePolicy: policy });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'survive' });
    // A worker that claimed the run, checkpointed step 1, then died: its lease is already over.
    await h.storage.runs.update(run.id, { status: ['pending'] }, {
      status: 'running',
      worker_id: 'wrk_dead',
      lease_expires_at: new Date(Date.now() - 1000).toISOString(),
      started_at: new Date().toISOString(),
      attempt: 1,
    });
    await h.storage.messages.append(conversation.thread_id, run.id, 1, [
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'write_file', input: { path: 'out.txt', content: 'survive' } }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'write_file', output: { type: 'text', value: 'ok' } }],
      },
    ]);
    return { h, user, run, conversation };
  }

  it('resumes a run from its last checkpoint when its worker vanished', async () => {
    const { h, user, run, conversation } = await crashMidRun('resume');
    const report = await h.reconciler.reconcileOnce();
    expect(report.resumed).toEqual([run.id]);
    await h.executor.start();
    h.queue.process((runId) => h.executor.execute(runId));
    const awaited = await h.runs.await(user, run.id, 10_000);
    expect(awaited.run.status).toBe('completed');
    expect(awaited.run.attempt).toBe(2);
    // Step 1 was not replayed: exactly one write_file call in the thread.
    const calls = (await h.storage.messages.list(conversation.thread_id)).filter(
      (entry) => entry.message.role === 'assistant' && JSON.stringify(entry.message.content).includes('write_file'),
    );
    expect(calls).toHaveLength(1);
  });

  it('fails the run with worker_lease_expired under the fail policy', async () => {
    const { h, user, run } = await crashMidRun('fail');
    const report = await h.reconciler.reconcileOnce();
    expect(report.failed).toEqual([run.id]);
    const failed = await h.runs.getRun(user, run.id);
    expect(failed.status).toBe('failed');
    expect(failed.error?.type).toBe('worker_lease_expired');
  });

  it('leaves a run whose lease is still live alone', async () => {
    const { h, run } = await crashMidRun('resume');
    await h.storage.runs.update(run.id, { status: ['running'] }, { lease_expires_at: new Date(Date.now() + 60_000).toISOString() });
    const report = await h.reconciler.reconcileOnce();
    expect(report.resumed).toEqual([]);
  });
});

