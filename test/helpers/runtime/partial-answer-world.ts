import type { ChatMessage } from '../../../src/core/thread/chat-message.js';
import { expect } from 'vitest';
import { closeAfterEach } from '../close-after-each.js';
import { TroupeError } from '../../../src/core/errors.js';
import type { Agent } from '../../../src/core/records/agent.js';
import type { Conversation } from '../../../src/core/records/conversation.js';
import type { Run } from '../../../src/core/records/run.js';
import type { ThreadMessage } from '../../../src/core/records/thread-message.js';
import type { User } from '../../../src/core/records/user.js';
import { partialAnswerMarker } from '../../../src/core/thread/partial-answer.js';
import { repairToolCallPairs } from '../../../src/core/thread/tool-call-pairs.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
  type RuntimeHarnessOptions,
} from '../create-runtime-harness.js';
import type { AgentMiddleware } from '../../../src/core/ports/agent-middleware.js';

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/**
 * Issue 18 item 6: what a run streamed in a model call it never finished is stored in the thread, marked
 * partial, in the transaction that ends the run; the conversation's next run sends it to the model.
 */

export const LONG =
  'You asked for something slow, so this answer takes its time: a scripted model streams it a few ' +
  'characters at a time, which leaves plenty of room to cancel it halfway through the sentence.';
// 4 characters per delta over 20 s: about half a second between deltas, so a cancel lands mid-answer.
const SLOW_STEP = { delay_ms: 20_000, chunk_size: 4, text: LONG };
export const MAIN = JSON.stringify({
  rules: [
    { when: { contains: 'slow' }, steps: [SLOW_STEP] },
    { when: { contains: 'break' }, steps: [SLOW_STEP] },
    {
      when: { contains: 'look first' },
      steps: [{ text: 'Looking.', tool_calls: [{ name: 'ls', args: {} }] }, SLOW_STEP],
    },
    {
      when: { contains: 'ask the helper' },
      steps: [
        { tool_calls: [{ name: 'task', args: { subagent_slug: 'helper', description: 'slow' } }] },
        { text: 'never' },
      ],
    },
    { steps: [{ text: 'fresh answer' }] },
  ],
});
export const HELPER = JSON.stringify({ rules: [{ steps: [SLOW_STEP] }] });

export interface World {
  h: RuntimeHarness;
  alice: User;
  main: Agent;
  conversation: Conversation;
  /** What each model call of the main agent was sent. */
  prompts: ChatMessage[][];
}

export const closeLater = closeAfterEach();

function lastUserText(messages: readonly ChatMessage[]): string {
  const last = [...messages].reverse().find((message) => message.role === 'user');
  return typeof last?.content === 'string' ? last.content : '';
}

/** Fails a "break" model call of the main agent once its first text delta was stored, like a dropped connection. */
function breakingMiddleware(world: () => World): AgentMiddleware {
  return {
    name: 'connection-breaker',
    async wrapModelCall(request, next) {
      if (request.agent.slug !== 'main' || !lastUserText(request.messages).includes('break'))
        return next(request);
      const controller = new AbortController();
      request.abortSignal.addEventListener('abort', () => controller.abort(request.abortSignal.reason), {
        once: true,
      });
      const subscription = await world().h.bus.subscribe(request.run.id, (event) => {
        if (event.type === 'message_delta')
          controller.abort(new TroupeError('model_call_failed', 'The model connection dropped'));
      });
      try {
        return await next({ ...request, abortSignal: controller.signal });
      } finally {
        await subscription.unsubscribe();
      }
    },
  };
}

export async function partialAnswerWorld({
  model,
  ...options
}: RuntimeHarnessOptions & { model?: string } = {}): Promise<World> {
  const prompts: ChatMessage[][] = [];
  const current: { world?: World } = {};
  const h = await createRuntimeHarness({
    scenarios: { main: MAIN, helper: HELPER },
    middleware: () =>
      Promise.resolve([
        {
          name: 'prompt-probe',
          wrapModelCall(request, next) {
            if (request.agent.slug === 'main') prompts.push([...request.messages]);
            return next(request);
          },
        },
        breakingMiddleware(() => current.world as World),
      ]),
    ...options,
  });
  closeLater(h);
  const alice = await h.createUser('alice');
  await h.createAgent(
    alice,
    'helper',
    { model: 'scripted:helper', tools: [] },
    { backend: 'subagent', is_subagent: true },
  );
  const main = await h.createAgent(alice, 'main', { model: model ?? 'scripted:main', tools: ['ls'] });
  const conversation = await h.createConversation(alice, main);
  current.world = { h, alice, main, conversation, prompts };
  return current.world;
}

export async function post(world: World, content: string): Promise<Run> {
  return (await world.h.runs.postMessage(world.alice, world.conversation.id, { content })).run;
}

export async function settle(world: World, runId: string): Promise<Run> {
  const awaited = await world.h.runs.await(world.alice, runId, 20_000);
  expect(awaited.wait_timed_out).toBe(false);
  return awaited.run;
}

/** Resolves once `count` text deltas of the run are stored (read from its event stream, no polling). */
export async function deltasStored(world: World, runId: string, count: number): Promise<void> {
  const controller = new AbortController();
  const stream = await world.h.runs.streamEvents(world.alice, runId, 0, controller.signal);
  let seen = 0;
  for await (const event of stream) {
    if (event.type === 'message_delta' && ++seen >= count) break;
  }
  controller.abort();
}

export async function streamedText(world: World, runId: string): Promise<string> {
  const events = await world.h.storage.events.list(runId, 0, 1000);
  return events.map((event) => (event.type === 'message_delta' ? String(event.payload.text) : '')).join('');
}

export function partialsOf(thread: readonly ThreadMessage[]) {
  return thread.flatMap((entry) => {
    const marker = partialAnswerMarker(entry.message);
    if (!marker || entry.message.role !== 'assistant' || typeof entry.message.content === 'string') return [];
    const text = entry.message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    return [{ run_id: entry.run_id, step: entry.step, text, run_status: marker.run_status }];
  });
}

/** The follow-up message completes, its model saw the partial turn, and the stored thread is a valid prompt. */
export async function expectConversationGoesOn(world: World, partial: string): Promise<void> {
  const next = await settle(world, (await post(world, 'hello again')).id);
  expect(next).toMatchObject({ status: 'completed', output: 'fresh answer', error: null });
  const prompt = world.prompts.at(-1) ?? [];
  expect(prompt.slice(-2).map((message) => message.role)).toEqual(['assistant', 'user']);
  expect(JSON.stringify(prompt.at(-2))).toContain(JSON.stringify(partial).slice(1, -1));
  const messages = (await world.h.storage.messages.list(world.conversation.thread_id)).map(
    (entry) => entry.message,
  );
  expect(repairToolCallPairs(messages)).toBe(messages);
}
