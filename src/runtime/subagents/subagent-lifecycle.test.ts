import { describe, expect, it } from 'vitest';
import { SLOW, runningParent, useSubagentWorld } from '../../../test/helpers/runtime/use-subagent-world.js';

const setup = useSubagentWorld();

describe('ownership of lifecycle tools', () => {
  it('only the creating run may query, await, cancel or steer a child', async () => {
    const { h, user, helper, conversation, main } = await setup({ helper: SLOW });
    const parent = await runningParent(h, user.id, conversation.id);
    const started = await h.subagents.start({
      creatorRunId: parent.id,
      userId: user.id,
      subagent: helper,
      description: 'x',
      toolCallId: 'c1',
    });
    if (!('run' in started)) throw new Error(`unexpected ${started.kind}`);
    expect((await h.subagents.getOwnedChild(parent.id, user.id, started.run.id))?.run.id).toBe(
      started.run.id,
    );

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
    const { h, user, conversation } = await setup({
      main: BACKGROUND,
      helper: SLOW,
      mainConfig: { keep_background_runs: true },
    });
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
    for (const leftover of await h.storage.runs.listChildren(next.run.id))
      await h.runs.cancel(user, leftover.id);
  });
});
