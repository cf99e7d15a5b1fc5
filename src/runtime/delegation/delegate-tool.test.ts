import { describe, expect, it } from 'vitest';
import type { Run } from '../../core/records/run.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { ask, useDelegationWorld } from '../../../test/helpers/runtime/delegation-world.js';
import { withoutVerification } from '../../../test/helpers/without-verification.js';

const setup = useDelegationWorld();

describe('delegate: expert A hands a task to expert B', () => {
  it('runs B as the same user in its own delegation conversation and returns its final text', async () => {
    const world = await setup();
    const { h, alice, a, b } = world;
    const { run, thread } = await ask(world, 'hello');
    expect(run.status).toBe('completed');
    expect(withoutVerification(run.output)).toBe('A got: B says <B task: hello>');
    expect(
      toolResults(thread, 'delegate').map((result) => ({
        ...result,
        text: withoutVerification(result.text),
      })),
    ).toEqual([{ name: 'delegate', text: 'B says <B task: hello>', isError: false }]);

    const [child] = await h.storage.runs.listChildren(run.id);
    expect(child).toMatchObject({
      agent_id: b.id,
      user_id: alice.id,
      run_type: 'delegation',
      source: 'delegation',
      channel: 'internal',
      status: 'completed',
      created_by_run_id: run.id,
      root_run_id: run.id,
      depth: 1,
      runtime_scope_id: run.runtime_scope_id,
      tool_approval_mode: 'always_trust',
      model_spec: 'scripted:b',
      input: { message: 'B task: hello', expert_slug: 'expert-b' },
    });
    const parent = await h.storage.conversations.get(world.conversationId);
    const childConversation = await h.storage.conversations.get(child?.conversation_id ?? '');
    expect(childConversation).toMatchObject({
      user_id: alice.id,
      agent_id: b.id,
      status: 'delegation',
      title: 'Delegation: Expert B',
      project_id: parent?.project_id,
      thread_id: child?.thread_id,
      metadata: {
        source: 'delegation',
        parent_conversation_id: parent?.id,
        parent_thread_id: parent?.thread_id,
        created_by_run_id: run.id,
        parent_tool_call_id: child?.input.parent_tool_call_id,
      },
    });
    expect(child?.thread_id).not.toBe(parent?.thread_id);

    // The roster reached the model twice: in the system prompt and in the tool description.
    const first = world.systems.find((line) => line.startsWith(`${a.slug}|`)) ?? '';
    expect(first).toContain('delegate');
    expect(first).toContain('- expert-b: Answers B questions.');
    expect(first).not.toContain('Expert B');
    expect(first).not.toContain('- expert-a:');
    expect(first).not.toContain('- closed:');

    const panel = await h.runs.listChildRuns(alice, world.conversationId);
    expect(panel).toMatchObject([
      { run_id: child?.id, kind: 'delegation', slug: 'expert-b', status: 'completed' },
    ]);
    const updates = (await h.storage.events.list(run.id, 0, 1000)).filter(
      (event) => event.type === 'subagent_update',
    );
    expect(updates.map((event) => [event.payload.kind, event.payload.status])).toEqual([
      ['delegation', 'pending'],
      ['delegation', 'running'],
      ['delegation', 'completed'],
    ]);
  });

  it("closes B's run when A is cancelled while waiting for it", async () => {
    const world = await setup();
    const { h, alice } = world;
    const { run } = await h.runs.postMessage(alice, world.conversationId, { content: 'slow please' });
    let child: Run | undefined;
    for (let attempt = 0; attempt < 200 && child?.status !== 'running'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      [child] = await h.storage.runs.listChildren(run.id);
    }
    expect(child?.status).toBe('running');
    await h.runs.cancel(alice, run.id);
    const parent = await h.runs.await(alice, run.id, 10_000);
    const closed = await h.runs.await(alice, child?.id ?? '', 10_000);
    expect(parent.run.status).toBe('cancelled');
    expect(closed.run.status).toBe('cancelled');
  });

  it('mounts nothing when the roster is empty (policy none, no mention)', async () => {
    const world = await setup();
    await world.h.storage.users.setDelegationPolicy(world.alice.id, 'none', []);
    const { run } = await ask(world, 'hello');
    expect(run.status).toBe('failed');
    expect(run.error?.message).toContain('delegate');
    expect(world.systems.every((line) => !line.includes('## `delegate`'))).toBe(true);
  });
});
