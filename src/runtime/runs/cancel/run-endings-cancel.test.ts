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
  waitForStatus,
} from '../../../../test/helpers/runtime/run-endings-world.js';

/** docs/runs.md: whatever ends a run, the conversation goes on (see test/helpers/runtime/run-endings-world.ts). */
const setup = useRunEndingsWorld();

describe.each(BACKENDS)('a run that ends never poisons its conversation (%s)', (name) => {
  it('cancel of a run parked on an approval', async () => {
    const world = await setup(name);
    const run = await post(world, 'write it');
    await waitForStatus(world, run.id, 'input_required');
    expect((await world.h.runs.cancel(world.alice, run.id)).status).toBe('cancelled');
    const closed = toolResults(await thread(world), 'write_file');
    expect(closed).toEqual([
      {
        name: 'write_file',
        text: 'Tool call cancelled: the run was cancelled before it returned a result',
        isError: true,
      },
    ]);
    const events = await world.h.storage.events.list(run.id, 0, 100);
    expect(
      events
        .slice(-2)
        .map((event) => [
          event.type,
          event.type === 'tool_result' ? (event.payload.closed_by_run_end ?? null) : null,
        ]),
    ).toEqual([
      ['tool_result', true],
      ['end', null],
    ]);
    await expectConversationGoesOn(world);
    // The closing result sits between the call and the next user message.
    expect((await thread(world)).map((entry) => entry.message.role)).toEqual([
      'user',
      'assistant',
      'tool',
      'user',
      'assistant',
    ]);
  });

  it('cancel while a tool is running', async () => {
    const world = await setup(name);
    const run = await post(world, 'hold on');
    await world.block.inFlight(1);
    await world.h.runs.cancel(world.alice, run.id);
    expect((await settle(world, run.id)).status).toBe('cancelled');
    await expectConversationGoesOn(world);
  });

  it('cancel during a blocking task: the parent and the child thread both go on', async () => {
    const world = await setup(name);
    const run = await post(world, 'ask the helper');
    await world.block.inFlight(1);
    await world.h.runs.cancel(world.alice, run.id);
    expect((await settle(world, run.id)).status).toBe('cancelled');
    const [child] = await world.h.storage.runs.listChildren(run.id);
    expect(await settle(world, child?.id ?? '')).toMatchObject({
      status: 'cancelled',
      error: { type: 'execution_tree_closed' },
    });
    expect(toolResults(await thread(world), 'task')[0]?.text).toBe(
      'Tool call cancelled: the run was cancelled before it returned a result',
    );
    await expectClosedThread(world, child?.thread_id);
    await expectConversationGoesOn(world);
  });
});
