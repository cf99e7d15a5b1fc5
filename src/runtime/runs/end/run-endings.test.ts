import { describe, expect, it } from 'vitest';
import { claimByDeadWorker } from '../../../../test/helpers/runtime/claim-by-dead-worker.js';
import { BACKENDS } from '../../../../test/helpers/model-backends.js';
import { UNFINISHED_TOOL_CALL_TEXT } from '../../../core/thread/tool-call-pairs.js';
import { toolResults } from '../../../../test/helpers/run-helpers.js';
import {
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
  it('failure of a resumed run (its agent was revoked while it waited for an approval)', async () => {
    const world = await setup(name, {}, 'root');
    const run = await post(world, 'write it');
    await waitForStatus(world, run.id, 'input_required');
    await world.h.storage.access.revoke(world.alice.id, world.main.id);
    const [approval] = await world.h.runs.listApprovals(world.alice, run.id);
    await world.h.runs.decideApproval(world.alice, run.id, approval?.tool_call_id ?? '', {
      decision: 'approve',
    });
    expect(await settle(world, run.id)).toMatchObject({
      status: 'failed',
      error: { type: 'agent_not_found' },
    });
    expect(toolResults(await thread(world), 'write_file')[0]?.text).toMatch(
      /^Tool call not completed: the run failed/,
    );
    await world.h.storage.access.grant(world.alice.id, world.main.id, 'granted');
    await expectConversationGoesOn(world);
  });

  it('lease expiry under the fail policy', async () => {
    const world = await setup(name, { startWorker: false, leasePolicy: 'fail' });
    const run = await post(world, 'hold on');
    // A worker claimed the run, checkpointed the model's tool call, and died before any result.
    await claimByDeadWorker(world.h.storage, run.id);
    await world.h.storage.messages.append(world.conversation.thread_id, run.id, 1, [
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'call_dead_1', toolName: 'ls', input: {} }],
      },
    ]);
    expect((await world.h.reconciler.reconcileOnce()).failed).toEqual([run.id]);
    expect(toolResults(await thread(world), 'ls')[0]?.text).toMatch(/worker executing the run stopped/);
    await world.h.executor.start();
    world.h.queue.process((runId) => world.h.executor.execute(runId));
    await expectConversationGoesOn(world);
  });

  it('max_steps', async () => {
    const world = await setup(name, { limits: { maxSteps: 1 } });
    const run = await post(world, 'loop');
    expect(await settle(world, run.id)).toMatchObject({
      status: 'interrupted',
      error: { type: 'max_steps' },
    });
    await expectConversationGoesOn(world);
  });

  it('a thread stored with a dangling call (before this fix) is repaired when the prompt is built', async () => {
    const world = await setup(name);
    await world.h.storage.messages.append(world.conversation.thread_id, null, 0, [
      { role: 'user', content: 'an old question' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'call_old_1', toolName: 'ls', input: {} }],
      },
    ]);
    const next = await settle(world, (await post(world, 'hello again')).id);
    expect(next).toMatchObject({ status: 'completed', output: 'fresh answer', error: null });
    // Stored as it was; the model was sent the call answered right after its turn.
    expect((await thread(world)).map((entry) => entry.message.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
    const prompt = world.prompts.at(-1) ?? [];
    expect(prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(JSON.stringify(prompt[2])).toContain(UNFINISHED_TOOL_CALL_TEXT);
  });
});
