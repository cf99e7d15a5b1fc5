import { describe, expect, it } from 'vitest';
import type { RuntimeHarnessOptions } from '../../../../test/helpers/create-runtime-harness.js';
import {
  HELPER_REPORTS as HELPER,
  runningParent,
  startTaskChild,
  TASK_MAIN,
  useSubagentWorld,
} from '../../../../test/helpers/runtime/use-subagent-world.js';
import { spyQueue } from '../../../../test/helpers/runtime/spy-queue.js';

const setup = useSubagentWorld();

const START_MAIN = `
rules:
  - steps:
      - tool_calls:
          - name: subagent_start
            args: { subagent_slug: helper, description: "Investigate: {{input}}" }
      - tool_calls:
          - name: subagent_await
            args: { run_id: "{{run_id}}" }
      - text: "Main got: {{last_tool_result}}"
`;

/** alice asks `main` once; returns the finished parent, its child, the runs queued and the parent's updates. */
async function dispatch(main: string, harness: RuntimeHarnessOptions = {}) {
  const { h, user, conversation } = await setup({
    main,
    helper: HELPER,
    mainConfig: { tool_approval_mode: 'always_trust' },
    harness,
  });
  const queued = spyQueue(h);
  const { run } = await h.runs.postMessage(user, conversation.id, { content: 'the logs' });
  const done = await h.runs.await(user, run.id, 15_000);
  expect(done.run.status).toBe('completed');
  expect(done.run.output).toContain('Helper report on <Investigate: the logs>');
  const [child] = await h.storage.runs.listChildren(run.id);
  if (!child) throw new Error('no child run');
  const updates = (await h.storage.events.list(run.id, 0, 1000))
    .filter((event) => event.type === 'subagent_update')
    .map((event) => event.payload.status);
  return { h, parent: done.run, child, queued, updates };
}

/**
 * Two slots: a parent whose model call holds one for a while (PARENT_HOLDS), so a child may take the other,
 * with `helper` playing `helperScenario`; `start` starts a child of it that it waits for, as its `task` tool
 * would.
 */
async function parentWithFreeSlot(helperScenario = HELPER) {
  const { h, user, helper, conversation } = await setup({
    helper: helperScenario,
    harness: { concurrency: 2 },
  });
  const parent = await runningParent(h, user.id, conversation.id);
  const start = (toolCallId: string) => startTaskChild(h, parent, helper, toolCallId);
  return { h, user, parent, start };
}

describe('a child run started in its creator’s process', () => {
  it('runs a child its creator waits for at once in a free slot: claimed as it is created, never queued', async () => {
    const { h, parent, child, queued, updates } = await dispatch(TASK_MAIN);
    expect(queued).toEqual([parent.id]);
    expect(child).toMatchObject({ status: 'completed', attempt: 1 });
    // Its parent's stream heard every status change: created, claimed, ended.
    expect(updates).toEqual(['pending', 'running', 'completed']);
    const childEvents = await h.storage.events.list(child.id, 0, 100);
    expect(childEvents.map((event) => event.type)).toEqual(['metadata', 'message_delta', 'step', 'end']);
  });

  it('reads no inbox before the first step of a child started at once, and every later one', async () => {
    const { h, user, start } = await parentWithFreeSlot(`
rules:
  - steps:
      - tool_calls:
          - name: read_file
            args: { path: "nothing.txt" }
      - text: "read"
`);
    const takes: string[] = [];
    const take = h.storage.inbox.take.bind(h.storage.inbox);
    h.storage.inbox.take = (runId) => (takes.push(runId), take(runId));
    const started = await start('call-1');
    if (started.kind !== 'started') throw new Error(`start: ${started.kind}`);
    expect(started.run).toMatchObject({ status: 'running', attempt: 1 });
    expect((await h.runs.await(user, started.run.id, 15_000)).run.status).toBe('completed');
    // Two steps: only the second looked for steering.
    expect(takes).toEqual([started.run.id]);
  });

  it('queues the child, pending until a worker claims it, when no slot is free', async () => {
    const { parent, child, queued, updates } = await dispatch(TASK_MAIN, { concurrency: 1 });
    expect(queued).toEqual([parent.id, child.id]);
    expect(child).toMatchObject({ status: 'completed', attempt: 1 });
    expect(updates).toEqual(['pending', 'running', 'completed']);
  });

  it('queues a background start even with free slots: its payload says pending (docs/subagents.md#the-child-run)', async () => {
    const { parent, child, queued, updates } = await dispatch(START_MAIN);
    expect(queued).toEqual([parent.id, child.id]);
    expect(updates[0]).toBe('pending');
    expect(updates.at(-1)).toBe('completed');
  });

  it('gives the slot back when a start fails after taking it: the next child still runs here', async () => {
    const { h, user, parent, start } = await parentWithFreeSlot();
    const queued = spyQueue(h);

    // The start's transaction fails after its work took the slot (as a failed COMMIT would): nothing is kept.
    const commit = h.storage.sharedCommitTransaction.bind(h.storage);
    h.storage.sharedCommitTransaction = (work, options) =>
      commit(async (tx) => {
        await work(tx);
        throw new Error('COMMIT failed');
      }, options);
    await expect(start('call-1')).rejects.toThrow('COMMIT failed');
    h.storage.sharedCommitTransaction = commit;
    expect(await h.storage.runs.listChildren(parent.id)).toEqual([]);

    const second = await start('call-2');
    if (second.kind !== 'started') throw new Error(`second start: ${second.kind}`);
    expect(queued).not.toContain(second.run.id);
    expect((await h.runs.await(user, second.run.id, 15_000)).run.status).toBe('completed');
  });

  it('hands a child back, pending, when its executor stopped while the start was committing', async () => {
    const { h, parent, start } = await parentWithFreeSlot();
    // A shutdown begins after the start's work took the slot and claimed the child, before its commit ends.
    const commit = h.storage.sharedCommitTransaction.bind(h.storage);
    let stopped: Promise<void> | undefined;
    h.storage.sharedCommitTransaction = (work, options) =>
      commit(async (tx) => {
        const result = await work(tx);
        stopped = h.runtime.executor.stop();
        return result;
      }, options);
    const started = await start('call-1');
    h.storage.sharedCommitTransaction = commit;
    if (started.kind !== 'started') throw new Error(`start: ${started.kind}`);
    await stopped;
    // Neither the child nor its parent is left held by the stopped worker: both wait for the next one.
    expect(await h.storage.runs.get(started.run.id)).toMatchObject({
      status: 'pending',
      worker_id: null,
      output: null,
    });
    expect(await h.storage.runs.get(parent.id)).toMatchObject({ status: 'pending', worker_id: null });
  });
});
