import type { ChatMessage } from '../../../src/core/thread/chat-message.js';
import { expect } from 'vitest';
import { closeAfterEach } from '../close-after-each.js';
import { z } from 'zod';
import type { Agent } from '../../../src/core/records/agent.js';
import type { Conversation } from '../../../src/core/records/conversation.js';
import type { Run } from '../../../src/core/records/run.js';
import type { User } from '../../../src/core/records/user.js';
import { repairToolCallPairs } from '../../../src/core/thread/tool-call-pairs.js';
import { defineTool } from '../../../src/core/tools/troupe-tool.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
  type RuntimeHarnessOptions,
} from '../create-runtime-harness.js';
import { startBackend, type BACKENDS, type ScriptRule } from '../model-backends.js';

// The fake servers' model names are unknown to the SDK, which says so on every call.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/**
 * docs/runs.md: whatever ends a run, the conversation goes on. Each test ends a run in one way while a tool
 * call has no result, then sends another message to the same conversation, whose run must complete —
 * with the scripted model and against fake OpenAI / Anthropic servers that, like the real APIs, refuse a
 * prompt with a tool call left unanswered.
 */

const MAIN: ScriptRule[] = [
  {
    when: { contains: 'write it' },
    steps: [
      { tool_calls: [{ name: 'write_file', args: { path: 'out.txt', content: 'x' } }] },
      { text: 'written' },
    ],
  },
  {
    when: { contains: 'hold on' },
    steps: [{ tool_calls: [{ name: 'block', args: {} }] }, { text: 'never' }],
  },
  {
    when: { contains: 'ask the helper' },
    steps: [
      { tool_calls: [{ name: 'task', args: { subagent_slug: 'helper', description: 'hold on' } }] },
      { text: 'never' },
    ],
  },
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
  {
    when: { contains: 'loop' },
    steps: [
      { tool_calls: [{ name: 'ls', args: {} }] },
      { tool_calls: [{ name: 'ls', args: {} }] },
      { text: 'never' },
    ],
  },
  // The message is a child thread id: continue that subagent thread.
  {
    when: { matches: '^subagent_' },
    steps: [
      {
        tool_calls: [
          { name: 'task', args: { subagent_slug: 'helper', description: 'again', thread_id: '{{input}}' } },
        ],
      },
      { text: 'continued' },
    ],
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
    effect: 'read_only',
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
    effect: 'read_only',
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

export interface World {
  h: RuntimeHarness;
  alice: User;
  main: Agent;
  conversation: Conversation;
  block: ReturnType<typeof blockingTool>;
  /** What each model call of the main agent was sent. */
  prompts: ChatMessage[][];
}

/** The world of the run-endings tests; the harness and the fake model server close after each test. */
export function useRunEndingsWorld() {
  const closeLater = closeAfterEach();
  return async function setup(
    name: (typeof BACKENDS)[number],
    options: RuntimeHarnessOptions = {},
    owner?: 'root',
  ): Promise<World> {
    const backend = await startBackend(name, MAIN);
    closeLater(backend);
    const block = blockingTool();
    const prompts: ChatMessage[][] = [];
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
    closeLater(h);
    const alice = await h.createUser('alice');
    await h.storage.users.setDelegationPolicy(alice.id, 'all', []);
    const root = owner ? await h.createUser('root', 'admin') : alice;
    await h.createAgent(
      alice,
      'helper',
      { model: 'scripted:helper', tools: ['block'] },
      { backend: 'subagent', is_subagent: true },
    );
    await h.createAgent(
      alice,
      'expert',
      { model: 'scripted:expert', tools: ['block'] },
      { status: 'published' },
    );
    const main = await h.createAgent(root, 'main', {
      model: backend.spec,
      tools: ['write_file', 'ls', 'block', 'wait_for_block'],
      tool_approval_mode: 'default',
    });
    if (owner) await h.storage.access.grant(alice.id, main.id, 'granted');
    const conversation = await h.createConversation(alice, main);
    return { h, alice, main, conversation, block, prompts };
  };
}

export async function post(world: World, content: string): Promise<Run> {
  return (await world.h.runs.postMessage(world.alice, world.conversation.id, { content })).run;
}

export async function settle(world: World, runId: string): Promise<Run> {
  const awaited = await world.h.runs.await(world.alice, runId, 20_000);
  expect(awaited.wait_timed_out).toBe(false);
  return awaited.run;
}

export async function waitForStatus(world: World, runId: string, status: Run['status']): Promise<void> {
  // A parked run emits nothing when it parks: the condition is the stored status.
  await expect
    .poll(async () => (await world.h.storage.runs.get(runId))?.status, { timeout: 15_000 })
    .toBe(status);
}

export async function thread(world: World, threadId = world.conversation.thread_id) {
  return world.h.storage.messages.list(threadId);
}

/** The stored thread is already a valid prompt: nothing to repair. */
export async function expectClosedThread(world: World, threadId?: string): Promise<void> {
  const messages = (await thread(world, threadId)).map((entry) => entry.message);
  expect(repairToolCallPairs(messages)).toBe(messages);
}

/** The follow-up message of the same conversation completes, and its model saw a valid prompt. */
export async function expectConversationGoesOn(world: World): Promise<void> {
  const next = await settle(world, (await post(world, 'hello again')).id);
  expect(next.error).toBeNull();
  expect(next).toMatchObject({ status: 'completed', output: 'fresh answer' });
  await expectClosedThread(world);
}
