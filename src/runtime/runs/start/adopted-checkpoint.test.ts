import { describe, expect, it } from 'vitest';
import type { Storage } from '../../../core/ports/storage.js';
import type { RunEvent, RunEventOf, RunEventType } from '../../../core/records/run-event.js';
import { TREE_STOPPING } from '../../../core/runs/child-run-parent.js';
import {
  HELPER_REPORTS,
  refusedWith,
  runningParent,
  startTaskChild,
  TASK_MAIN,
  useSubagentWorld,
} from '../../../../test/helpers/runtime/use-subagent-world.js';

const setup = useSubagentWorld();

/** The parent's events by type, each with its seq and the instant of the insert that appended it. */
const at = <K extends RunEventType>(events: readonly RunEvent[], type: K, index = 0): RunEventOf<K> => {
  const event = events.filter((candidate): candidate is RunEventOf<K> => candidate.type === type)[index];
  if (!event) throw new Error(`no ${type} #${index}`);
  return event;
};

/** The thread's messages as `step:role`, in order. */
const threadShape = async (storage: Storage, threadId: string) =>
  (await storage.messages.list(threadId)).map((entry) => `${entry.step}:${entry.message.role}`);

describe("a step whose calls only start children (the step's checkpoint held for them)", () => {
  it('commits the tool call with its child, and the result with the final answer, in order', async () => {
    const { h, user, conversation } = await setup({ main: TASK_MAIN, helper: HELPER_REPORTS });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'the logs' });
    const done = await h.runs.await(user, run.id, 15_000);
    expect(done.run.status).toBe('completed');
    expect(done.run.output).toContain('Helper report');
    const events = await h.storage.events.list(run.id, 0, 1000);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));

    // The model's turn and the child's start: one insert, so one transaction, tool_call first.
    const call = at(events, 'tool_call');
    const pending = at(events, 'subagent_update', 0);
    const running = at(events, 'subagent_update', 1);
    expect([pending.payload.status, running.payload.status]).toEqual(['pending', 'running']);
    expect([pending.seq, running.seq]).toEqual([call.seq + 1, call.seq + 2]);
    expect(new Set([call.created_at, pending.created_at, running.created_at]).size).toBe(1);

    // The child's result went out with the final answer: one insert again, the result first.
    const result = at(events, 'tool_result');
    const end = at(events, 'end');
    expect(at(events, 'subagent_update', 2).seq).toBeLessThan(result.seq);
    expect(result.created_at).toBe(end.created_at);
    expect(result.seq).toBeLessThan(end.seq);

    expect(await threadShape(h.storage, run.thread_id)).toEqual([
      '0:user',
      '1:assistant',
      '1:tool',
      '2:assistant',
    ]);
  });

  it('still writes the call before its error result when the start is refused before it began', async () => {
    const main = TASK_MAIN.replace('subagent_slug: helper', 'subagent_slug: nobody');
    const { h, user, conversation } = await setup({ main, helper: HELPER_REPORTS });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'the logs' });
    expect((await h.runs.await(user, run.id, 15_000)).run.status).toBe('completed');
    const events = await h.storage.events.list(run.id, 0, 1000);
    const result = at(events, 'tool_result');
    expect(result.payload.is_error).toBe(true);
    expect(at(events, 'tool_call').seq).toBeLessThan(result.seq);
    expect(await h.storage.runs.listChildren(run.id)).toEqual([]);
    const thread = await h.storage.messages.list(run.thread_id);
    expect(thread.map((entry) => entry.message.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });
});

describe('the stop guarantee at a child start (docs/budgets.md)', () => {
  it('refuses a start once a cancel of its creator is committed, signal or not', async () => {
    const { h, user, helper, conversation } = await setup({ helper: HELPER_REPORTS });
    const parent = await runningParent(h, user.id, conversation.id);
    // The cancel is committed but its signal never sent: only the start's own read can see it.
    await h.storage.runs.update(parent.id, { status: ['running'] }, { status: 'cancel_requested' });
    expect(await startTaskChild(h, parent, helper, 'call-1')).toEqual(refusedWith(TREE_STOPPING));
    expect(await h.storage.runs.listChildren(parent.id)).toEqual([]);
  });

  it('stops a run whose task call comes after a cancel it was never told of: no child, no next model call', async () => {
    const main = `
rules:
  - steps:
      - delay_ms: 400
        tool_calls:
          - name: task
            args: { subagent_slug: helper, description: "Investigate: {{input}}" }
      - text: "never"
`;
    const { h, user, conversation } = await setup({ main, helper: HELPER_REPORTS });
    const parent = await runningParent(h, user.id, conversation.id);
    await h.storage.runs.update(parent.id, { status: ['running'] }, { status: 'cancel_requested' });
    const done = await h.runs.await(user, parent.id, 15_000);
    expect(done.run.status).toBe('cancelled');
    expect(done.run.output ?? '').not.toContain('never');
    expect(await h.storage.runs.listChildren(parent.id)).toEqual([]);
    const events = await h.storage.events.list(parent.id, 0, 1000);
    expect(events.filter((event) => event.type === 'subagent_update')).toEqual([]);
  });
});

describe('a step with two child starts', () => {
  it('writes its turn with the first start; the second waits for that commit; both results come back', async () => {
    const main = `
rules:
  - steps:
      - tool_calls:
          - name: task
            args: { subagent_slug: helper, description: "first: {{input}}" }
          - name: task
            args: { subagent_slug: helper, description: "second: {{input}}" }
      - text: "Main got: {{last_tool_result}}"
`;
    const { h, user, conversation } = await setup({ main, helper: HELPER_REPORTS });
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'the logs' });
    expect((await h.runs.await(user, run.id, 15_000)).run.status).toBe('completed');
    const events = await h.storage.events.list(run.id, 0, 1000);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    const kinds = events
      .filter((event) => ['tool_call', 'subagent_update', 'tool_result'].includes(event.type))
      .map((event) =>
        event.type === 'subagent_update' ? `update:${String(event.payload.status)}` : event.type,
      );
    // Both calls are announced before either child, each child is pending before running, and each
    // result comes after its child's end.
    expect(kinds.slice(0, 2)).toEqual(['tool_call', 'tool_call']);
    expect(kinds.filter((kind) => kind === 'update:pending')).toHaveLength(2);
    expect(kinds.filter((kind) => kind === 'tool_result')).toHaveLength(2);
    const children = await h.storage.runs.listChildren(run.id);
    expect(children.map((child) => child.status)).toEqual(['completed', 'completed']);
    for (const child of children) {
      const of = (status: string) =>
        events.findIndex(
          (event) =>
            event.type === 'subagent_update' &&
            event.payload.run_id === child.id &&
            event.payload.status === status,
        );
      const result = events.findIndex(
        (event) =>
          event.type === 'tool_result' && event.payload.tool_call_id === child.input.parent_tool_call_id,
      );
      expect(of('pending')).toBeGreaterThan(-1);
      expect(of('pending')).toBeLessThan(of('running'));
      expect(of('running')).toBeLessThan(of('completed'));
      expect(of('completed')).toBeLessThan(result);
    }
    expect(await threadShape(h.storage, run.thread_id)).toEqual([
      '0:user',
      '1:assistant',
      '1:tool',
      '1:tool',
      '2:assistant',
    ]);
  });
});
