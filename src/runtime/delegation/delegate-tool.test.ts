import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { DELEGATION_TEXTS } from '../../core/delegation/delegation-texts.js';
import type { Agent } from '../../core/records/agent.js';
import type { Run } from '../../core/records/run.js';
import type { User } from '../../core/records/user.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
  type RuntimeHarnessOptions,
} from '../../../test/helpers/create-runtime-harness.js';
import { toolResults } from '../../../test/helpers/run-helpers.js';
import { defineTool } from '../tools/troupe-tool.js';

/** Expert A: one rule per scenario, keyed by a word of the user message. */
const EXPERT_A = `
rules:
  - when: { contains: stale }
    steps:
      - tool_calls: [{ name: flip_b, args: {} }]
      - tool_calls: [{ name: delegate, args: { expert: expert-b, task: "{{input}}" } }]
      - text: "A got: {{last_tool_result}}"
  - when: { contains: closed }
    steps:
      - tool_calls: [{ name: delegate, args: { expert: closed, task: "{{input}}" } }]
      - text: "A got: {{last_tool_result}}"
  - when: { contains: secret }
    steps:
      - tool_calls: [{ name: delegate, args: { expert: secret, task: "{{input}}" } }]
      - text: "A got: {{last_tool_result}}"
  - steps:
      - text: "Asking B."
        tool_calls: [{ name: delegate, args: { expert: "@expert-b", task: "B task: {{input}}" } }]
      - text: "A got: {{last_tool_result}}"
`;
const EXPERT_B = `
rules:
  - when: { contains: broken }
    steps:
      - tool_calls: [{ name: read_file, args: { nope: 1 } }]
  - when: { contains: back }
    steps:
      - tool_calls: [{ name: delegate, args: { expert: expert-a, task: "{{input}}" } }]
      - text: "B got: {{last_tool_result}}"
  - when: { contains: chain }
    steps:
      - tool_calls: [{ name: delegate, args: { expert: expert-c, task: "{{input}}" } }]
      - text: "B got: {{last_tool_result}}"
  - when: { contains: slow }
    steps:
      - delay_ms: 10000
        text: too late
  - steps:
      - text: "B says <{{input}}>"
`;
const EXPERT_C = `
rules:
  - when: { contains: deeper }
    steps:
      - tool_calls: [{ name: delegate, args: { expert: expert-d, task: "{{input}}" } }]
      - text: "C got: {{last_tool_result}}"
  - steps:
      - text: "C says <{{input}}>"
`;
const EXPERT_D = `rules:\n  - steps:\n      - text: "D says <{{input}}>"\n`;

let harness: RuntimeHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

interface World {
  h: RuntimeHarness;
  alice: User;
  a: Agent;
  b: Agent;
  conversationId: string;
  systems: string[];
}

async function setup(options: RuntimeHarnessOptions = {}): Promise<World> {
  const systems: string[] = [];
  // Set once the experts exist; the tool runs only later, inside a run.
  const hooks: { flip?: () => Promise<void> } = {};
  const h = await createRuntimeHarness({
    scenarios: { a: EXPERT_A, b: EXPERT_B, c: EXPERT_C, d: EXPERT_D },
    extraTools: [
      defineTool({
        name: 'flip_b',
        description: 'Test hook: makes expert B non-delegatable after the roster was built.',
        inputSchema: z.object({}),
        execute: async () => {
          await hooks.flip?.();
          return 'flipped';
        },
      }),
    ],
    middleware: () =>
      Promise.resolve([
        {
          name: 'capture',
          wrapModelCall(request, next) {
            systems.push(
              `${request.agent.slug}|${request.tools.map((tool) => tool.name).join(',')}|${request.system}`,
            );
            return next(request);
          },
        },
      ]),
    ...options,
  });
  harness = h;
  const alice = await h.createUser('alice');
  const bob = await h.createUser('bob');
  await h.storage.users.setDelegationPolicy(alice.id, 'all', []);
  const expert = (owner: User, slug: string, model: string, extra = {}) =>
    h.createAgent(
      owner,
      slug,
      { model, tools: ['read_file', 'flip_b'] },
      { status: 'published', name: slug, ...extra },
    );
  const a = await expert(alice, 'expert-a', 'scripted:a', {
    config: { model: 'scripted:a', tools: ['flip_b'], tool_approval_mode: 'always_trust' },
  });
  const b = await expert(alice, 'expert-b', 'scripted:b', {
    name: 'Expert B',
    delegation_brief: 'Answers B questions.',
  });
  await expert(alice, 'expert-c', 'scripted:c');
  await expert(alice, 'expert-d', 'scripted:d');
  await expert(alice, 'closed', 'scripted:d', { delegatable: false });
  await expert(bob, 'secret', 'scripted:d', { visibility: 'private' });
  hooks.flip = async () => void (await h.storage.agents.update(b.id, { delegatable: false }));
  const conversation = await h.createConversation(alice, a);
  return { h, alice, a, b, conversationId: conversation.id, systems };
}

async function ask(
  world: World,
  content: string,
): Promise<{ run: Run; thread: Awaited<ReturnType<RuntimeHarness['storage']['messages']['list']>> }> {
  const { run } = await world.h.runs.postMessage(world.alice, world.conversationId, { content });
  const done = await world.h.runs.await(world.alice, run.id, 20_000);
  const conversation = await world.h.storage.conversations.get(world.conversationId);
  return { run: done.run, thread: await world.h.storage.messages.list(conversation?.thread_id ?? '') };
}

describe('delegate: expert A hands a task to expert B', () => {
  it('runs B as the same user in its own delegation conversation and returns its final text', async () => {
    const world = await setup();
    const { h, alice, a, b } = world;
    const { run, thread } = await ask(world, 'hello');
    expect(run.status).toBe('completed');
    expect(run.output).toBe('A got: B says <B task: hello>');
    expect(toolResults(thread, 'delegate')).toEqual([
      { name: 'delegate', text: 'B says <B task: hello>', isError: false },
    ]);

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

  it('re-checks at call time: B made non-delegatable after the roster was built is refused', async () => {
    const world = await setup();
    const { run, thread } = await ask(world, 'stale roster');
    expect(toolResults(thread, 'delegate')).toEqual([
      { name: 'delegate', text: DELEGATION_TEXTS.notDelegatable, isError: true },
    ]);
    expect(run.output).toBe(`A got: ${DELEGATION_TEXTS.notDelegatable}`);
    expect(await world.h.storage.runs.listChildren(run.id)).toEqual([]);
  });

  it.each([
    ['closed', DELEGATION_TEXTS.notDelegatable],
    ['secret', DELEGATION_TEXTS.notFound],
  ])(
    'answers a call for "%s" (outside the roster) with the refusal text, as an error result',
    async (word, text) => {
      const world = await setup();
      const { run, thread } = await ask(world, `ask ${word}`);
      expect(toolResults(thread, 'delegate')).toEqual([{ name: 'delegate', text, isError: true }]);
      expect(run.status).toBe('completed');
      expect(await world.h.storage.runs.listChildren(run.id)).toEqual([]);
    },
  );

  it("surfaces a failed expert run with its status and error, never as B's answer", async () => {
    const world = await setup();
    const { thread } = await ask(world, 'broken');
    const [result] = toolResults(thread, 'delegate');
    expect(result?.isError).toBe(true);
    expect(result?.text).toMatch(/^The delegated expert's run ended as failed: /);
  });

  it('lets B delegate to C within the depth limit, and refuses C → D past it', async () => {
    const world = await setup();
    const { h } = world;
    const { run } = await ask(world, 'chain deeper');
    expect(run.status).toBe('completed');
    const [bRun] = await h.storage.runs.listChildren(run.id);
    const [cRun] = await h.storage.runs.listChildren(bRun?.id ?? '');
    expect([bRun?.depth, cRun?.depth, cRun?.root_run_id]).toEqual([1, 2, run.id]);
    expect(await h.storage.runs.listChildren(cRun?.id ?? '')).toEqual([]);
    const cResults = toolResults(await h.storage.messages.list(cRun?.thread_id ?? ''), 'delegate');
    expect(cResults).toEqual([{ name: 'delegate', text: DELEGATION_TEXTS.depthExceeded(2), isError: true }]);
    expect(run.output).toBe(`A got: B got: C got: ${DELEGATION_TEXTS.depthExceeded(2)}`);
  });

  it('takes the depth limit from the settings', async () => {
    const world = await setup({ limits: { delegationMaxDepth: 1 } });
    const { run } = await ask(world, 'chain');
    const [bRun] = await world.h.storage.runs.listChildren(run.id);
    const bResults = toolResults(await world.h.storage.messages.list(bRun?.thread_id ?? ''), 'delegate');
    expect(bResults).toEqual([{ name: 'delegate', text: DELEGATION_TEXTS.depthExceeded(1), isError: true }]);
  });

  it('refuses a cycle A → B → A by ancestry', async () => {
    const world = await setup();
    const { run } = await ask(world, 'back');
    const [bRun] = await world.h.storage.runs.listChildren(run.id);
    const bResults = toolResults(await world.h.storage.messages.list(bRun?.thread_id ?? ''), 'delegate');
    expect(bResults).toEqual([
      { name: 'delegate', text: DELEGATION_TEXTS.cycle(['expert-a', 'expert-b'], 'expert-a'), isError: true },
    ]);
    expect(bResults[0]?.text).toBe(
      'Delegation cycle refused: expert-a is already working in this delegation chain (expert-a → expert-b → expert-a)',
    );
    expect(await world.h.storage.runs.listChildren(bRun?.id ?? '')).toEqual([]);
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
