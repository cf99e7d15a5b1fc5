import { afterEach } from 'vitest';
import { z } from 'zod';
import type { Agent } from '../../../src/core/records/agent.js';
import type { Run } from '../../../src/core/records/run.js';
import type { User } from '../../../src/core/records/user.js';
import { defineTool } from '../../../src/core/tools/troupe-tool.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
  type RuntimeHarnessOptions,
} from '../create-runtime-harness.js';

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

export interface World {
  h: RuntimeHarness;
  alice: User;
  a: Agent;
  b: Agent;
  conversationId: string;
  systems: string[];
}

/**
 * alice (delegation policy `all`) with published experts A to D, a non-delegatable `closed` and bob's private
 * `secret`, and a conversation with A; `systems` records each model call's agent, tools and system prompt.
 * The harness is closed after each test of the file that calls this.
 */
export function useDelegationWorld() {
  let harness: RuntimeHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });
  return async function setup(options: RuntimeHarnessOptions = {}): Promise<World> {
    const systems: string[] = [];
    // Set once the experts exist; the tool runs only later, inside a run.
    const hooks: { flip?: () => Promise<void> } = {};
    const h = await createRuntimeHarness({
      scenarios: { a: EXPERT_A, b: EXPERT_B, c: EXPERT_C, d: EXPERT_D },
      extraTools: [
        defineTool({
          effect: 'read_only',
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
  };
}

/** Sends `content` to A, waits for the run to end and returns it with the conversation thread. */
export async function ask(
  world: World,
  content: string,
): Promise<{ run: Run; thread: Awaited<ReturnType<RuntimeHarness['storage']['messages']['list']>> }> {
  const { run } = await world.h.runs.postMessage(world.alice, world.conversationId, { content });
  const done = await world.h.runs.await(world.alice, run.id, 20_000);
  const conversation = await world.h.storage.conversations.get(world.conversationId);
  return { run: done.run, thread: await world.h.storage.messages.list(conversation?.thread_id ?? '') };
}
