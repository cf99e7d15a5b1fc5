import { describe, expect, it } from 'vitest';
import {
  QUICK,
  SLOW,
  refusedWith,
  runningParent,
  useSubagentWorld,
} from '../../../test/helpers/runtime/use-subagent-world.js';

const setup = useSubagentWorld();

describe('subagent start: busy and idempotency under concurrency', () => {
  it('50 parallel starts on one thread create exactly one run; 49 are busy', async () => {
    const { h, user, helper, conversation } = await setup({ helper: SLOW });
    const parent = await runningParent(h, user.id, conversation.id);
    const first = await h.subagents.start({
      creatorRunId: parent.id,
      userId: user.id,
      subagent: helper,
      description: 'first',
      toolCallId: 'call-0',
    });
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
    const runsOnThread = (await h.storage.runs.listChildren(parent.id)).filter(
      (run) => run.thread_id === first.run.thread_id,
    );
    expect(runsOnThread).toHaveLength(2);
    await h.runs.cancel(user, parent.id);
  });

  it('50 parallel replays of one tool call create exactly one run', async () => {
    const { h, user, helper, conversation } = await setup({ helper: SLOW });
    const parent = await runningParent(h, user.id, conversation.id);
    const outcomes = await Promise.all(
      Array.from({ length: 50 }, () =>
        h.subagents.start({
          creatorRunId: parent.id,
          userId: user.id,
          subagent: helper,
          description: 'same',
          toolCallId: 'call-same',
        }),
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

describe('subagent start: a replayed tool call', () => {
  it('gets the same run back, in the parent’s first attempt (by the insert’s conflict) and in a resumed one', async () => {
    const { h, user, helper, conversation } = await setup({ helper: SLOW });
    const parent = await runningParent(h, user.id, conversation.id);
    const start = () =>
      h.subagents.start({
        creatorRunId: parent.id,
        userId: user.id,
        subagent: helper,
        description: 'same',
        toolCallId: 'call-once',
      });
    const first = await start();
    if (first.kind !== 'started') throw new Error('the first start failed');
    const again = await start();
    await h.storage.runs.update(parent.id, { status: ['running'] }, { attempt: 2 });
    const resumed = await start();
    for (const outcome of [again, resumed]) {
      expect(outcome).toMatchObject({ kind: 'existing', run: { id: first.run.id } });
    }
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
      h.subagents.start({
        creatorRunId: run.id,
        userId: user.id,
        subagent: helper,
        description: 'x',
        toolCallId: 'c',
      }),
    ).resolves.toEqual(refusedWith('The parent run has ended; it cannot start subagents'));
    const childRun = await h.storage.runs.insert({
      ...run,
      id: crypto.randomUUID(),
      request_id: 'r2',
      run_type: 'subagent',
      thread_id: 'other',
    });
    await expect(
      h.subagents.start({
        creatorRunId: childRun.id,
        userId: user.id,
        subagent: helper,
        description: 'x',
        toolCallId: 'c',
      }),
    ).resolves.toEqual(refusedWith('Subagents cannot start subagents'));
    // Nothing half-created survives a refused start.
    expect(await h.storage.subagentThreads.listForParent(conversation.id)).toEqual([]);
  });

  it('enforces the active-children limit per run and per user', async () => {
    const { h, user, helper, main, conversation } = await setup({
      helper: SLOW,
      harness: { limits: { maxActiveChildrenPerRun: 2, maxActiveChildrenPerUser: 3 } },
    });
    const parent = await runningParent(h, user.id, conversation.id);
    const start = (call: string, creator = parent.id) =>
      h.subagents.start({
        creatorRunId: creator,
        userId: user.id,
        subagent: helper,
        description: call,
        toolCallId: call,
      });
    await start('a');
    await start('b');
    await expect(start('c')).resolves.toEqual(
      refusedWith('This run already has 2 active subagent runs (the limit)'),
    );
    const other = await h.createConversation(user, main);
    const otherParent = await runningParent(h, user.id, other.id);
    await start('d', otherParent.id);
    await expect(start('e', otherParent.id)).resolves.toEqual(
      refusedWith('You already have 3 active subagent runs (the limit)'),
    );
    await h.runs.cancel(user, parent.id);
    await h.runs.cancel(user, otherParent.id);
  });

  it('refuses to continue a thread of another conversation or another subagent', async () => {
    const { h, user, helper, conversation, main } = await setup();
    const parent = await runningParent(h, user.id, conversation.id);
    const first = await h.subagents.start({
      creatorRunId: parent.id,
      userId: user.id,
      subagent: helper,
      description: 'x',
      toolCallId: 'c1',
    });
    if (!('run' in first)) throw new Error(`unexpected ${first.kind}`);
    const other = await h.createConversation(user, main);
    const otherParent = await runningParent(h, user.id, other.id);
    await expect(
      h.subagents.start({
        creatorRunId: otherParent.id,
        userId: user.id,
        subagent: helper,
        description: 'x',
        threadId: first.run.thread_id,
        toolCallId: 'c2',
      }),
    ).resolves.toEqual(refusedWith(`Cannot continue subagent thread ${first.run.thread_id}`));
    await expect(
      h.subagents.start({
        creatorRunId: parent.id,
        userId: user.id,
        subagent: helper,
        description: 'x',
        threadId: 'subagent_made_up',
        toolCallId: 'c3',
      }),
    ).resolves.toEqual(refusedWith('Cannot continue subagent thread subagent_made_up'));
    await h.runs.cancel(user, parent.id);
    await h.runs.cancel(user, otherParent.id);
  });
});
