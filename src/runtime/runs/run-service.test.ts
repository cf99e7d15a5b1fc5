import { describe, expect, it, vi } from 'vitest';
import { collectEvents as collect } from '../../../test/helpers/run-helpers.js';
import {
  ECHO_SCENARIO as ECHO,
  SLOW_SCENARIO as SLOW,
  useSingleAgentRuntime,
} from '../../../test/helpers/runtime/use-single-agent-runtime.js';

const setup = useSingleAgentRuntime();

describe('run service: a conversation turn end to end', () => {
  it('runs the loop, checkpoints each step and streams every event in order', async () => {
    const { h, user, conversation } = await setup(ECHO);
    const started = await h.runs.postMessage(user, conversation.id, { content: 'hello troupe' });
    expect(started.status).toBe('started');
    const events = await collect(
      await h.runs.streamEvents(user, started.run.id, 0, new AbortController().signal),
    );
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

  it('starts a lone post at once, and one in a burst of requests after the turn, with what the burst brings', async () => {
    const { h, user, conversation } = await setup(ECHO);
    const gathered: (boolean | undefined)[] = [];
    const shared = h.storage.sharedCommitTransaction.bind(h.storage);
    vi.spyOn(h.storage, 'sharedCommitTransaction').mockImplementation((work, options) => {
      gathered.push(options?.gather);
      return shared(work, options);
    });
    const post = async (content: string) => {
      const { run } = await h.runs.postMessage(user, conversation.id, { content });
      await h.runs.await(user, run.id, 10_000);
    };
    // The post's transaction is the first of each turn; the run's own commits never gather.
    await post('alone');
    const lone = gathered.splice(0);
    h.runtime.requests.arrived();
    h.runtime.requests.arrived();
    await post('in a burst');
    expect([lone[0], gathered[0]]).toEqual([false, true]);
    expect([...lone.slice(1), ...gathered.slice(1)].every((gather) => gather === false)).toBe(true);
  });

  it('replays a request_id as `existing`, even under 20 concurrent identical requests', async () => {
    const { h, user, conversation } = await setup(ECHO);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        h.runs.postMessage(user, conversation.id, { content: 'once', request_id: 'req-fixed' }),
      ),
    );
    expect(new Set(results.map((result) => result.run.id)).size).toBe(1);
    expect(results.filter((result) => result.status === 'started')).toHaveLength(1);
    expect(results.filter((result) => result.status === 'existing')).toHaveLength(19);
    const userMessages = (await h.storage.messages.list(conversation.thread_id)).filter(
      (entry) => entry.step === 0,
    );
    expect(userMessages).toHaveLength(1);
  });

  it('answers a retry with its run even when a check before the insert would now refuse it', async () => {
    const { h, user, agent, conversation } = await setup(ECHO);
    const first = await h.runs.postMessage(user, conversation.id, {
      content: 'once',
      request_id: 'req-retry',
    });
    await h.runs.await(user, first.run.id, 10_000);
    await h.storage.agents.softDelete(agent.id, new Date().toISOString());
    await expect(
      h.runs.postMessage(user, conversation.id, { content: 'once', request_id: 'req-retry' }),
    ).resolves.toMatchObject({ status: 'existing', run: { id: first.run.id } });
    // A new request meets the check.
    await expect(
      h.runs.postMessage(user, conversation.id, { content: 'again', request_id: 'req-new' }),
    ).rejects.toMatchObject({ code: 'agent_not_found' });
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

  it("hides another user's runs and conversations as not found", async () => {
    const { h, user, conversation } = await setup(ECHO);
    const mallory = await h.createUser('mallory');
    const { run } = await h.runs.postMessage(user, conversation.id, { content: 'mine' });
    await expect(h.runs.getRun(mallory, run.id)).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(h.runs.getResult(mallory, run.id)).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(h.runs.cancel(mallory, run.id)).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(h.runs.await(mallory, run.id, 10)).rejects.toMatchObject({ code: 'run_not_found' });
    await expect(h.runs.streamEvents(mallory, run.id, 0, new AbortController().signal)).rejects.toMatchObject(
      {
        code: 'run_not_found',
      },
    );
    await expect(h.runs.postMessage(mallory, conversation.id, { content: 'x' })).rejects.toMatchObject({
      code: 'conversation_not_found',
    });
    await expect(h.runs.listRunsOfConversation(mallory, conversation.id)).rejects.toMatchObject({
      code: 'conversation_not_found',
    });
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
