import type { ModelMessage } from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Agent } from '../core/records/agent.js';
import type { Conversation } from '../core/records/conversation.js';
import type { Run } from '../core/records/run.js';
import type { User } from '../core/records/user.js';
import { repairToolCallPairs, UNFINISHED_TOOL_CALL_TEXT } from '../core/thread/tool-call-pairs.js';
import { createRuntimeHarness, type RuntimeHarness, type RuntimeHarnessOptions } from '../../test/helpers/create-runtime-harness.js';
import { BACKENDS, startBackend, type ScriptedBackend, type ScriptRule } from '../../test/helpers/model-backends.js';
import { toolResults } from '../../test/helpers/run-helpers.js';
import { defineTool } from './tools/troupe-tool.js';

// The fake servers' model names are unknown to the SDK, which says so on every call.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/**
 * SPEC §2: whatever ends a run, the conversation goes on. Each test ends a run in one way while a tool
 * call has no result, then sends another message to the same conversation, whose run must complete —
 * with the scripted model and against fake OpenAI / Anthropic servers that, like the real APIs, refuse a
 * prompt with a tool call left unanswered.
 */

const MAIN: ScriptRule[] = [
  { when: { contains: 'write it' }, steps: [{ tool_calls: [{ name: 'write_file', args: { path: 'out.txt', content: 'x' } }] }, { text: 'written' }] },
  { when: { contains: 'hold on' }, steps: [{ tool_calls: [{ name: 'block', args: {} }] }, { text: 'never' }] },
  { when: { contains: 'ask the helper' }, steps: [{ tool_calls: [{ name: 'task', args: { subagent_slug: 'helper', description: 'hold on' } }] }, { text: 'never' }] },
  {
    when: { contains: 'fan out' },
    steps: [
      {
        tool_calls: [
          { name: 'subagent_start', args: { subagent_slug: 'helper', description: 'hold on' } },
          { name: 'delegate', args: { expert: 'expert', task: 'hold on' } },
        ],
      },
      { text: 'never' },
    ],
  },
  {
    when: { contains: 'in the background' },
    steps: [
      { tool_calls: [{ name: 'subagent_start', args: { subagent_slug: 'helper', description: 'hold on' } }] },
      { tool_calls: [{ name: 'wait_for_block', args: {} }] },
      { text: 'left it running' },
    ],
  },
  { when: { contains: 'loop' }, steps: [{ tool_calls: [{ name: 'ls', args: {} }] }, { tool_calls: [{ name: 'ls', args: {} }] }, { text: 'never' }] },
  // The message is a child thread id: continue that subagent thread.
  {
    when: { matches: '^subagent_' },
    steps: [{ tool_calls: [{ name: 'task', args: { subagent_slug: 'helper', description: 'again', thread_id: '{{input}}' } }] }, { text: 'continued' }],
  },
  { steps: [{ text: 'fresh answer' }] },
];
const HELPER = `
rules:
  - when: { contains: "hold on" }
    steps:
      - tool_calls: [{ name: block, args: {} }]
      - text: never
  - steps:
      - text: "helper done: {{input}}"
`;
const EXPERT = HELPER;

/** A tool that runs until its run is aborted, and tells the test when calls are in flight. */
function blockingTool() {
  let started = 0;
  const waiters: { count: number; resolve: () => void }[] = [];
  const tool = defineTool({
    name: 'block',
    description: 'Waits until the run is cancelled',
    inputSchema: z.object({}),
    execute: (_input, context) =>
      new Promise<string>((_resolve, reject) => {
        context.abortSignal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
        started += 1;
        for (const waiter of waiters.filter((entry) => entry.count <= started)) waiter.resolve();
      }),
  });
  const inFlight = (count: number) =>
    new Promise<void>((resolve) => (started >= count ? resolve() : waiters.push({ count, resolve })));
  // Lets a parent finish its turn only once its background child is inside `block`.
  const waitTool = defineTool({
    name: 'wait_for_block',
    description: 'Returns once a block call is in flight',
    inputSchema: z.object({}),
    execute: async () => {
      await inFlight(1);
      return 'blocked';
    },
  });
  return { tool, waitTool, inFlight };
}

interface World {
  h: RuntimeHarness;
  alice: User;
  main: Agent;
  conversation: Conversation;
  block: ReturnType<typeof blockingTool>;
  /** What each model call of the main agent was sent. */
  prompts: ModelMessage[][];
}

let harness: RuntimeHarness | undefined;
let backend: ScriptedBackend | undefined;
afterEach(async () => {
  await harness?.close();
  await backend?.close();
  harness = undefined;
  backend = undefined;
});

async function setup(name: (typeof BACKENDS)[number], options: RuntimeHarnessOptions = {}, owner?: 'root'): Promise<World> {
  backend = await startBackend(name, MAIN);
  const block = blockingTool();
  const prompts: ModelMessage[][] = [];
  const h = await createRuntimeHarness({
    scenarios: { ...backend.scenarios, helper: HELPER, expert: EXPERT },
    models: backend.models,
    extraTools: [block.tool, block.waitTool],
    middleware: () =>
      Promise.resolve([
        {
          name: 'prompt-probe',
          wrapModelCall(request, next) {
            if (request.agent.slug === 'main') prompts.push([...request.messages]);
            return next(request);
          },
        },
      ]),
    ...options,
  });
  harness = h;
  const alice = await h.createUser('alice');
  await h.storage.users.setDelegationPolicy(alice.id, 'all', []);
  const root = owner ? await h.createUser('root', 'admin') : alice;
  await h.createAgent(alice, 'helper', { model: 'scripted:helper', tools: ['block'] }, { backend: 'subagent', is_subagent: true });
  await h.createAgent(alice, 'expert', { model: 'scripted:expert', tools: ['block'] }, { status: 'published' });
  const main = await h.createAgent(root, 'main', { model: backend.spec, tools: ['write_file', 'ls', 'block', 'wait_for_block'], tool_approval_mode: 'default' });
  if (owner) await h.storage.access.grant(alice.id, main.id, 'granted');
  const conversation = await h.createConversation(alice, main);
  return { h, alice, main, conversation, block, prompts };
}

async function post(world: World, content: string): Promise<Run> {
  return (await world.h.runs.postMessage(world.alice, world.conversation.id, { content })).run;
}

async function settle(world: World, runId: string): Promise<Run> {
  const awaited = await world.h.runs.await(world.alice, runId, 20_000);
  expect(awaited.wait_timed_out).toBe(false);
  return awaited.run;
}

async function waitForStatus(world: World, runId: string, status: Run['status']): Promise<void> {
  // A parked run emits nothing when it parks: the condition is the stored status.
  await expect.poll(async () => (await world.h.storage.runs.get(runId))?.status, { timeout: 15_000 }).toBe(status);
}

async function thread(world: World, threadId = world.conversation.thread_id) {
  return world.h.storage.messages.list(threadId);
}

/** The stored thread is already a valid prompt: nothing to repair. */
async function expectClosedThread(world: World, threadId?: string): Promise<void> {
  const messages = (await thread(world, threadId)).map((entry) => entry.message);
  expect(repairToolCallPairs(messages)).toBe(messages);
}

/** The follow-up message of the same conversation completes, and its model saw a valid prompt. */
async function expectConversationGoesOn(world: World): Promise<void> {
  const next = await settle(world, (await post(world, 'hello again')).id);
  expect(next.error).toBeNull();
  expect(next).toMatchObject({ status: 'completed', output: 'fresh answer' });
  await expectClosedThread(world);
}

describe.each(BACKENDS)('a run that ends never poisons its conversation (%s)', (name) => {
  it('cancel of a run parked on an approval', async () => {
    const world = await setup(name);
    const run = await post(world, 'write it');
    await waitForStatus(world, run.id, 'input_required');
    expect((await world.h.runs.cancel(world.alice, run.id)).status).toBe('cancelled');
    const closed = toolResults(await thread(world), 'write_file');
    expect(closed).toEqual([
      { name: 'write_file', text: 'Tool call cancelled: the run was cancelled before it returned a result', isError: true },
    ]);
    const events = await world.h.storage.events.list(run.id, 0, 100);
    expect(events.slice(-2).map((event) => [event.type, event.payload.closed_by_run_end ?? null])).toEqual([
      ['tool_result', true],
      ['end', null],
    ]);
    await expectConversationGoesOn(world);
    // The closing result sits between the call and the next user message.
    expect((await thread(world)).map((entry) => entry.message.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
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
    expect(await settle(world, child?.id ?? '')).toMatchObject({ status: 'cancelled', error: { type: 'execution_tree_closed' } });
    expect(toolResults(await thread(world), 'task')[0]?.text).toBe('Tool call cancelled: the run was cancelled before it returned a result');
    await expectClosedThread(world, child?.thread_id);
    await expectConversationGoesOn(world);
  });

  it('execution_tree_closed cascade over a step with parallel subagent_start + delegate', async () => {
    const world = await setup(name);
    const run = await post(world, 'fan out');
    await world.block.inFlight(2);
    await world.h.runs.cancel(world.alice, run.id);
    expect((await settle(world, run.id)).status).toBe('cancelled');
    const children = await world.h.storage.runs.listChildren(run.id);
    expect(children.map((child) => child.run_type).sort()).toEqual(['delegation', 'subagent']);
    for (const child of children) {
      expect(await settle(world, child.id)).toMatchObject({ status: 'cancelled', error: { type: 'execution_tree_closed' } });
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
    expect(await settle(world, child?.id ?? '')).toMatchObject({ status: 'cancelled', error: { type: 'execution_tree_closed' } });
    expect(toolResults(await thread(world, child?.thread_id), 'block')[0]?.text).toMatch(/execution tree/);
    await expectClosedThread(world, child?.thread_id);
    const again = await settle(world, (await post(world, child?.thread_id ?? '')).id);
    expect(again).toMatchObject({ status: 'completed', output: 'continued' });
  });

  it('failure of a resumed run (its agent was revoked while it waited for an approval)', async () => {
    const world = await setup(name, {}, 'root');
    const run = await post(world, 'write it');
    await waitForStatus(world, run.id, 'input_required');
    await world.h.storage.access.revoke(world.alice.id, world.main.id);
    const [approval] = await world.h.runs.listApprovals(world.alice, run.id);
    await world.h.runs.decideApproval(world.alice, run.id, approval?.tool_call_id ?? '', { decision: 'approve' });
    expect(await settle(world, run.id)).toMatchObject({ status: 'failed', error: { type: 'agent_not_found' } });
    expect(toolResults(await thread(world), 'write_file')[0]?.text).toMatch(/^Tool call not completed: the run failed/);
    await world.h.storage.access.grant(world.alice.id, world.main.id, 'granted');
    await expectConversationGoesOn(world);
  });

  it('lease expiry under the fail policy', async () => {
    const world = await setup(name, { startWorker: false, leasePolicy: 'fail' });
    const run = await post(world, 'hold on');
    // A worker claimed the run, checkpointed the model's tool call, and died before any result.
    await world.h.storage.runs.update(run.id, { status: ['pending'] }, {
      status: 'running',
      worker_id: 'wrk_dead',
      lease_expires_at: new Date(Date.now() - 1000).toISOString(),
      started_at: new Date().toISOString(),
      attempt: 1,
    });
    await world.h.storage.messages.append(world.conversation.thread_id, run.id, 1, [
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_dead_1', toolName: 'ls', input: {} }] },
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
    expect(await settle(world, run.id)).toMatchObject({ status: 'interrupted', error: { type: 'max_steps' } });
    await expectConversationGoesOn(world);
  });

  it('a thread stored with a dangling call (before this fix) is repaired when the prompt is built', async () => {
    const world = await setup(name);
    await world.h.storage.messages.append(world.conversation.thread_id, null, 0, [
      { role: 'user', content: 'an old question' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_old_1', toolName: 'ls', input: {} }] },
    ]);
    const next = await settle(world, (await post(world, 'hello again')).id);
    expect(next).toMatchObject({ status: 'completed', output: 'fresh answer', error: null });
    // Stored as it was; the model was sent the call answered right after its turn.
    expect((await thread(world)).map((entry) => entry.message.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const prompt = world.prompts.at(-1) ?? [];
    expect(prompt.map((message) => message.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(JSON.stringify(prompt[2])).toContain(UNFINISHED_TOOL_CALL_TEXT);
  });
});
