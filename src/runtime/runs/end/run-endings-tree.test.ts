import { describe, expect, it } from 'vitest';
import { BACKENDS } from '../../../../test/helpers/model-backends.js';
import { toolResults } from '../../../../test/helpers/run-helpers.js';
import {
  expectClosedThread,
  expectConversationGoesOn,
  post,
  settle,
  thread,
  useRunEndingsWorld,
} from '../../../../test/helpers/runtime/run-endings-world.js';

/** docs/runs.md: whatever ends a run, the conversation goes on (see test/helpers/runtime/run-endings-world.ts). */
const setup = useRunEndingsWorld();

describe.each(BACKENDS)('a run that ends never poisons its conversation (%s)', (name) => {
  it('execution_tree_closed cascade over a step with parallel subagent_start + delegate', async () => {
    const world = await setup(name);
    const run = await post(world, 'fan out');
    await world.block.inFlight(2);
    await world.h.runs.cancel(world.alice, run.id);
    expect((await settle(world, run.id)).status).toBe('cancelled');
    const children = await world.h.storage.runs.listChildren(run.id);
    expect(children.map((child) => child.run_type).sort()).toEqual(['delegation', 'subagent']);
    for (const child of children) {
      expect(await settle(world, child.id)).toMatchObject({
        status: 'cancelled',
        error: { type: 'execution_tree_closed' },
      });
      expect(toolResults(await thread(world, child.thread_id), 'block')[0]?.text).toMatch(/execution tree/);
      await expectClosedThread(world, child.thread_id);
    }
    await expectConversationGoesOn(world);
    // The closed subagent thread can be continued too.
    const subagent = children.find((child) => child.run_type === 'subagent');
    const again = await settle(world, (await post(world, subagent?.thread_id ?? '')).id);
    expect(again).toMatchObject({ status: 'completed', output: 'continued' });
    expect(toolResults(await thread(world), 'task').at(-1)?.text).toContain('helper done: again');
  });

  it('execution_tree_closed when the parent completes with a background child mid-tool', async () => {
    const world = await setup(name);
    const run = await post(world, 'in the background');
    expect(await settle(world, run.id)).toMatchObject({ status: 'completed', output: 'left it running' });
    const [child] = await world.h.storage.runs.listChildren(run.id);
    expect(await settle(world, child?.id ?? '')).toMatchObject({
      status: 'cancelled',
      error: { type: 'execution_tree_closed' },
    });
    expect(toolResults(await thread(world, child?.thread_id), 'block')[0]?.text).toMatch(/execution tree/);
    await expectClosedThread(world, child?.thread_id);
    const again = await settle(world, (await post(world, child?.thread_id ?? '')).id);
    expect(again).toMatchObject({ status: 'completed', output: 'continued' });
  });
});
