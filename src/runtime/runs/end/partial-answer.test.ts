import type { ChatMessage } from '../../../core/thread/chat-message.js';
import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../../../../test/helpers/close-after-each.js';
import { TroupeError } from '../../../core/errors.js';
import type { Agent } from '../../../core/records/agent.js';
import type { Conversation } from '../../../core/records/conversation.js';
import type { Run } from '../../../core/records/run.js';
import type { ThreadMessage } from '../../../core/records/thread-message.js';
import type { User } from '../../../core/records/user.js';
import { partialAnswerMarker } from '../../../core/thread/partial-answer.js';
import { repairToolCallPairs } from '../../../core/thread/tool-call-pairs.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
  type RuntimeHarnessOptions,
} from '../../../../test/helpers/create-runtime-harness.js';
import { BACKENDS, startBackend, type ScriptRule } from '../../../../test/helpers/model-backends.js';
import type { AgentMiddleware } from '../../../core/ports/agent-middleware.js';

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/**
 * Issue 18 item 6: what a run streamed in a model call it never finished is stored in the thread, marked
 * partial, in the transaction that ends the run; the conversation's next run sends it to the model.
 */

const LONG =
  'You asked for something slow, so this answer takes its time: a scripted model streams it a few ' +
  'characters at a time, which leaves plenty of room to cancel it halfway through the sentence.';
// 4 characters per delta over 20 s: about half a second between deltas, so a cancel lands mid-answer.
const SLOW_STEP = { delay_ms: 20_000, chunk_size: 4, text: LONG };
const MAIN = JSON.stringify({
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
const HELPER = JSON.stringify({ rules: [{ steps: [SLOW_STEP] }] });

interface World {
  h: RuntimeHarness;
  alice: User;
  main: Agent;
  conversation: Conversation;
  /** What each model call of the main agent was sent. */
  prompts: ChatMessage[][];
}

const closeLater = closeAfterEach();

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

async function setup({ model, ...options }: RuntimeHarnessOptions & { model?: string } = {}): Promise<World> {
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

async function post(world: World, content: string): Promise<Run> {
  return (await world.h.runs.postMessage(world.alice, world.conversation.id, { content })).run;
}

async function settle(world: World, runId: string): Promise<Run> {
  const awaited = await world.h.runs.await(world.alice, runId, 20_000);
  expect(awaited.wait_timed_out).toBe(false);
  return awaited.run;
}

/** Resolves once `count` text deltas of the run are stored (read from its event stream, no polling). */
async function deltasStored(world: World, runId: string, count: number): Promise<void> {
  const controller = new AbortController();
  const stream = await world.h.runs.streamEvents(world.alice, runId, 0, controller.signal);
  let seen = 0;
  for await (const event of stream) {
    if (event.type === 'message_delta' && ++seen >= count) break;
  }
  controller.abort();
}

async function streamedText(world: World, runId: string): Promise<string> {
  const events = await world.h.storage.events.list(runId, 0, 1000);
  return events.map((event) => (event.type === 'message_delta' ? String(event.payload.text) : '')).join('');
}

function partialsOf(thread: readonly ThreadMessage[]) {
  return thread.flatMap((entry) => {
    const marker = partialAnswerMarker(entry.message);
    if (!marker || entry.message.role !== 'assistant' || typeof entry.message.content === 'string') return [];
    const text = entry.message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    return [{ run_id: entry.run_id, step: entry.step, text, run_status: marker.run_status }];
  });
}

/** The follow-up message completes, its model saw the partial turn, and the stored thread is a valid prompt. */
async function expectConversationGoesOn(world: World, partial: string): Promise<void> {
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

describe('a run that ends mid-answer keeps what it said (scripted model)', () => {
  it('cancel while the answer streams: the streamed text is stored, marked cancelled, before the end', async () => {
    const world = await setup();
    const run = await post(world, 'slow please');
    await deltasStored(world, run.id, 2);
    await world.h.runs.cancel(world.alice, run.id);
    expect((await settle(world, run.id)).status).toBe('cancelled');
    const said = await streamedText(world, run.id);
    expect(said.length).toBeGreaterThanOrEqual(8);
    expect(LONG.startsWith(said)).toBe(true);
    expect(said).not.toBe(LONG);
    const thread = await world.h.storage.messages.list(world.conversation.thread_id);
    expect(thread.map((entry) => entry.message.role)).toEqual(['user', 'assistant']);
    expect(partialsOf(thread)).toEqual([{ run_id: run.id, step: 1, text: said, run_status: 'cancelled' }]);
    // The cancelled run's output stays empty: the partial answer lives in the thread.
    expect((await world.h.storage.runs.get(run.id))?.output).toBeNull();
    await expectConversationGoesOn(world, said);
  });

  it('cancel mid-answer after a tool step: the partial turn follows the tool result', async () => {
    const world = await setup();
    const run = await post(world, 'look first');
    await deltasStored(world, run.id, 3);
    await world.h.runs.cancel(world.alice, run.id);
    expect((await settle(world, run.id)).status).toBe('cancelled');
    const thread = await world.h.storage.messages.list(world.conversation.thread_id);
    expect(thread.map((entry) => [entry.message.role, entry.step])).toEqual([
      ['user', 0],
      ['assistant', 1],
      ['tool', 1],
      ['assistant', 2],
    ]);
    // Only the text of the unfinished call: "Looking." belongs to the checkpointed first turn.
    const [partial] = partialsOf(thread);
    expect(partial?.text).not.toContain('Looking.');
    expect(LONG.startsWith(partial?.text ?? 'x')).toBe(true);
    await expectConversationGoesOn(world, partial?.text ?? '');
  });

  it('failure mid-answer: the streamed text is stored, marked failed', async () => {
    const world = await setup();
    const run = await post(world, 'break it');
    expect(await settle(world, run.id)).toMatchObject({
      status: 'failed',
      error: { type: 'model_call_failed' },
    });
    const said = await streamedText(world, run.id);
    const partials = partialsOf(await world.h.storage.messages.list(world.conversation.thread_id));
    expect(partials).toEqual([{ run_id: run.id, step: 1, text: said, run_status: 'failed' }]);
    await expectConversationGoesOn(world, said);
  });

  it('execution_tree_closed: a child cut off mid-answer keeps its text in its own thread', async () => {
    const world = await setup();
    const run = await post(world, 'ask the helper');
    await expect
      .poll(async () => (await world.h.storage.runs.listChildren(run.id)).length, { timeout: 15_000 })
      .toBe(1);
    const [child] = await world.h.storage.runs.listChildren(run.id);
    if (!child) throw new Error('no child run');
    await deltasStored(world, child.id, 2);
    await world.h.runs.cancel(world.alice, run.id);
    expect(await settle(world, child.id)).toMatchObject({
      status: 'cancelled',
      error: { type: 'execution_tree_closed' },
    });
    const said = await streamedText(world, child.id);
    const childThread = await world.h.storage.messages.list(child.thread_id);
    expect(partialsOf(childThread)).toEqual([
      { run_id: child.id, step: 1, text: said, run_status: 'cancelled' },
    ]);
  });

  it('a checkpointed turn whose run died before reporting it is not stored twice', async () => {
    const world = await setup({ startWorker: false, leasePolicy: 'fail' });
    const run = await post(world, 'slow please');
    await world.h.storage.runs.update(
      run.id,
      { status: ['pending'] },
      {
        status: 'running',
        worker_id: 'wrk_dead',
        lease_expires_at: new Date(Date.now() - 1000).toISOString(),
        started_at: new Date().toISOString(),
        attempt: 1,
      },
    );
    await world.h.storage.events.append({ run_id: run.id, type: 'metadata', payload: {} });
    await world.h.storage.events.append({
      run_id: run.id,
      type: 'message_delta',
      payload: { text: 'All said.' },
    });
    await world.h.storage.messages.append(world.conversation.thread_id, run.id, 1, [
      { role: 'assistant', content: [{ type: 'text', text: 'All said.' }] },
    ]);
    expect((await world.h.reconciler.reconcileOnce()).failed).toEqual([run.id]);
    const thread = await world.h.storage.messages.list(world.conversation.thread_id);
    expect(thread.map((entry) => entry.message.role)).toEqual(['user', 'assistant']);
    expect(partialsOf(thread)).toEqual([]);
  });

  it('a worker shutdown mid-answer stores nothing: the run goes back to pending, to be resumed', async () => {
    const world = await setup();
    const run = await post(world, 'slow please');
    await deltasStored(world, run.id, 2);
    await world.h.executor.stop();
    expect((await world.h.storage.runs.get(run.id))?.status).toBe('pending');
    expect(partialsOf(await world.h.storage.messages.list(world.conversation.thread_id))).toEqual([]);
  });
});

describe.each(BACKENDS)('a partial answer is a valid prompt for the next run (%s)', (name) => {
  const rules: ScriptRule[] = [{ steps: [{ text: 'fresh answer' }] }];

  it('lease expiry under the fail policy keeps the text the dead worker had streamed', async () => {
    const backend = await startBackend(name, rules);
    closeLater(backend);
    const world = await setup({
      startWorker: false,
      leasePolicy: 'fail',
      scenarios: { main: MAIN, helper: HELPER, ...backend.scenarios },
      models: backend.models,
      model: name === 'scripted' ? 'scripted:main' : backend.spec,
    });
    const run = await post(world, 'tell me');
    // A worker claimed the run, streamed part of its answer and died.
    await world.h.storage.runs.update(
      run.id,
      { status: ['pending'] },
      {
        status: 'running',
        worker_id: 'wrk_dead',
        lease_expires_at: new Date(Date.now() - 1000).toISOString(),
        started_at: new Date().toISOString(),
        attempt: 1,
      },
    );
    for (const payload of [{}, { text: 'Half an ' }, { text: 'answer, then ' }]) {
      await world.h.storage.events.append({
        run_id: run.id,
        type: payload.text ? 'message_delta' : 'metadata',
        payload,
      });
    }
    expect((await world.h.reconciler.reconcileOnce()).failed).toEqual([run.id]);
    const partials = partialsOf(await world.h.storage.messages.list(world.conversation.thread_id));
    expect(partials).toEqual([
      { run_id: run.id, step: 1, text: 'Half an answer, then ', run_status: 'failed' },
    ]);
    await world.h.executor.start();
    world.h.queue.process((runId) => world.h.executor.execute(runId));
    await expectConversationGoesOn(world, 'Half an answer, then ');
    if (name !== 'scripted')
      expect(JSON.stringify(backend.requests.at(-1)?.body.messages)).toContain('Half an answer, then ');
  });
});
