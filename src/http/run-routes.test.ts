import { afterEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../core/records/conversation.js';
import type { RunEvent } from '../core/records/run-event.js';
import type { Run } from '../core/records/run.js';
import type { AwaitedRun, RunResult, RunServiceApi, StartedRun } from '../runtime/run-service-api.js';
import type { RuntimeHarness } from '../../test/helpers/create-runtime-harness.js';
import { createRuntimeHarness } from '../../test/helpers/create-runtime-harness.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';

const QUICK = `
rules:
  - steps:
      - text: "All done here."
`;

const SLOW = `
rules:
  - steps:
      - delay_ms: 20000
        chunk_size: 4
        text: "${'slow text '.repeat(40)}"
`;

let harness: RuntimeHarness | undefined;
let ctx: TestContext | undefined;
afterEach(async () => {
  await ctx?.close();
  await harness?.close();
  ctx = undefined;
  harness = undefined;
});

interface Setup {
  ctx: TestContext;
  alice: TestUser;
  conversation: Conversation;
  /** The signals the HTTP layer handed to `streamEvents`, to observe client disconnects. */
  streamSignals: AbortSignal[];
}

async function setup(scenario: string, sseHeartbeatMs?: number): Promise<Setup> {
  harness = await createRuntimeHarness({ scenarios: { main: scenario } });
  const real = harness.runs;
  const streamSignals: AbortSignal[] = [];
  const runs: RunServiceApi = {
    ...real,
    streamEvents: async (actor, runId, afterSeq, signal) => {
      streamSignals.push(signal);
      return real.streamEvents(actor, runId, afterSeq, signal);
    },
  };
  ctx = await createTestContext({
    harness,
    runs,
    sseHeartbeatMs,
  });
  const alice = await ctx.createUser('alice');
  await ctx.agents.create(alice.user, {
    name: 'Main',
    slug: 'main',
    config: { model: 'scripted:main', tool_approval_mode: 'always_trust' },
  });
  const conversation = await ctx.conversations.create(alice.user, { agent_id: 'main' });
  return { ctx, alice, conversation, streamSignals };
}

async function post(s: Setup, content: string, requestId?: string): Promise<StartedRun> {
  const body = requestId === undefined ? { content } : { content, request_id: requestId };
  const response = await s.ctx.request('POST', `/api/conversations/${s.conversation.id}/messages`, {
    token: s.alice.token,
    body,
  });
  return json<StartedRun>(response, 202);
}

interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

function parseFrames(text: string): SseFrame[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const frame: SseFrame = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comment = line.slice(1).trim();
        const match = /^(id|event|data): ?(.*)$/.exec(line);
        if (match?.[1] !== undefined) frame[match[1] as 'id' | 'event' | 'data'] = match[2];
      }
      return frame;
    });
}

async function readAll(response: Response): Promise<SseFrame[]> {
  return parseFrames(await response.text());
}

function eventsOf(frames: SseFrame[]): RunEvent[] {
  return frames
    .filter((frame) => frame.data !== undefined)
    .map((frame) => JSON.parse(frame.data ?? '') as RunEvent);
}

describe('posting messages and reading runs', () => {
  it('starts a run (202), replays an idempotent request, awaits it and reads the result', async () => {
    const s = await setup(QUICK);
    const started = await post(s, 'hello', 'req-1');
    expect(started.status).toBe('started');
    const replay = await post(s, 'hello', 'req-1');
    expect(replay).toMatchObject({ status: 'existing', run: { id: started.run.id } });

    const awaited = await json<AwaitedRun>(
      await s.ctx.request('GET', `/api/agent/runs/${started.run.id}/await?timeout_ms=15000`, {
        token: s.alice.token,
      }),
      200,
    );
    expect(awaited).toMatchObject({ wait_timed_out: false, run: { status: 'completed' } });
    const result = await json<RunResult>(
      await s.ctx.request('GET', `/api/agent/runs/${started.run.id}/result`, { token: s.alice.token }),
      200,
    );
    expect(result).toMatchObject({ status: 'completed', run_id: started.run.id, output: 'All done here.' });
    const run = await json<{ run: Run }>(
      await s.ctx.request('GET', `/api/agent/runs/${started.run.id}`, { token: s.alice.token }),
      200,
    );
    expect(run.run.conversation_id).toBe(s.conversation.id);
    const list = await json<{ runs: Run[] }>(
      await s.ctx.request('GET', `/api/conversations/${s.conversation.id}/runs`, { token: s.alice.token }),
      200,
    );
    expect(list.runs.map((item) => item.id)).toEqual([started.run.id]);
    const messages = await json<{ messages: unknown[] }>(
      await s.ctx.request('GET', `/api/conversations/${s.conversation.id}/messages`, {
        token: s.alice.token,
      }),
      200,
    );
    expect(messages.messages.length).toBeGreaterThanOrEqual(2);
  });

  it('keys request_id per user: two users with the same id each get their own run and replay', async () => {
    const s = await setup(QUICK);
    const bob = await s.ctx.createUser('bob');
    await s.ctx.agents.create(bob.user, {
      name: 'Bob main',
      slug: 'bob-main',
      config: { model: 'scripted:main' },
    });
    const bobs = await s.ctx.conversations.create(bob.user, { agent_id: 'bob-main' });
    const postAs = async (user: TestUser, conversationId: string) =>
      json<StartedRun>(
        await s.ctx.request('POST', `/api/conversations/${conversationId}/messages`, {
          token: user.token,
          body: { content: 'hello', request_id: 'req-shared' },
        }),
        202,
      );
    const alicesRun = await postAs(s.alice, s.conversation.id);
    // Before 0003 this was 409 request_id_conflict: it told bob the id was taken and blocked him.
    const bobsRun = await postAs(bob, bobs.id);
    expect(alicesRun.status).toBe('started');
    expect(bobsRun.status).toBe('started');
    expect(bobsRun.run.id).not.toBe(alicesRun.run.id);
    expect(bobsRun.run).toMatchObject({
      user_id: bob.user.id,
      conversation_id: bobs.id,
      request_id: 'req-shared',
    });
    // A replay answers `existing` with the replaying user's own run only.
    expect(await postAs(bob, bobs.id)).toMatchObject({ status: 'existing', run: { id: bobsRun.run.id } });
    expect(await postAs(s.alice, s.conversation.id)).toMatchObject({
      status: 'existing',
      run: { id: alicesRun.run.id },
    });
    // Bob cannot reach alice's conversation with her id either: that stays a plain 404.
    await expectError(
      await s.ctx.request('POST', `/api/conversations/${s.conversation.id}/messages`, {
        token: bob.token,
        body: { content: 'hello', request_id: 'req-shared' },
      }),
      404,
      'conversation_not_found',
    );
  });

  it('answers 409 run_busy while the conversation has an active run, and cancels on request', async () => {
    const s = await setup(SLOW);
    const started = await post(s, 'go');
    await expectError(
      await s.ctx.request('POST', `/api/conversations/${s.conversation.id}/messages`, {
        token: s.alice.token,
        body: { content: 'again' },
      }),
      409,
      'run_busy',
    );
    const timedOut = await json<AwaitedRun>(
      await s.ctx.request('GET', `/api/agent/runs/${started.run.id}/await?timeout_ms=50`, {
        token: s.alice.token,
      }),
      200,
    );
    expect(timedOut.wait_timed_out).toBe(true);
    const cancelled = await json<{ run: Run }>(
      await s.ctx.request('POST', `/api/agent/runs/${started.run.id}/cancel`, { token: s.alice.token }),
      200,
    );
    expect(['cancel_requested', 'cancelled']).toContain(cancelled.run.status);
    const awaited = await json<AwaitedRun>(
      await s.ctx.request('GET', `/api/agent/runs/${started.run.id}/await?timeout_ms=15000`, {
        token: s.alice.token,
      }),
      200,
    );
    expect(awaited.run.status).toBe('cancelled');
  });

  it('answers 409 conversation_archived for an archived conversation', async () => {
    const s = await setup(QUICK);
    await s.ctx.conversations.patch(s.alice.user, s.conversation.id, { status: 'archived' });
    await expectError(
      await s.ctx.request('POST', `/api/conversations/${s.conversation.id}/messages`, {
        token: s.alice.token,
        body: { content: 'hi' },
      }),
      409,
      'conversation_archived',
    );
  });
});

describe('GET /api/agent/runs/{id}/events (SSE)', () => {
  it('streams every event as id/event/data frames, in order, and closes after end', async () => {
    const s = await setup(QUICK);
    const started = await post(s, 'hello');
    const response = await s.ctx.request('GET', `/api/agent/runs/${started.run.id}/events`, {
      token: s.alice.token,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');
    const frames = (await readAll(response)).filter((frame) => frame.data !== undefined);
    const events = eventsOf(frames);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    expect(frames.map((frame) => frame.id)).toEqual(events.map((event) => String(event.seq)));
    expect(frames.map((frame) => frame.event)).toEqual(events.map((event) => event.type));
    expect(events[0]?.type).toBe('metadata');
    expect(events.at(-1)?.type).toBe('end');
    expect(events.every((event) => event.run_id === started.run.id)).toBe(true);
  });

  it('resumes after after_seq, and Last-Event-ID wins over after_seq', async () => {
    const s = await setup(QUICK);
    const started = await post(s, 'hello');
    const url = `/api/agent/runs/${started.run.id}/events`;
    const all = eventsOf(await readAll(await s.ctx.request('GET', url, { token: s.alice.token })));
    const fromQuery = eventsOf(
      await readAll(await s.ctx.request('GET', `${url}?after_seq=2`, { token: s.alice.token })),
    );
    expect(fromQuery.map((event) => event.seq)).toEqual(all.slice(2).map((event) => event.seq));
    const fromHeader = eventsOf(
      await readAll(
        await s.ctx.request('GET', `${url}?after_seq=1`, {
          token: s.alice.token,
          headers: { 'Last-Event-ID': '3' },
        }),
      ),
    );
    expect(fromHeader[0]?.seq).toBe(4);
    expect(fromHeader.at(-1)?.type).toBe('end');
    await expectError(
      await s.ctx.request('GET', url, { token: s.alice.token, headers: { 'Last-Event-ID': 'abc' } }),
      400,
      'validation_failed',
    );
  });

  it('sends heartbeat comments and stops iterating when the client disconnects', async () => {
    const s = await setup(SLOW, 30);
    const started = await post(s, 'go');
    const response = await s.ctx.request('GET', `/api/agent/runs/${started.run.id}/events`, {
      token: s.alice.token,
    });
    const reader = (response.body as ReadableStream<Uint8Array> | null)?.getReader();
    if (reader === undefined) throw new Error('no body');
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(': heartbeat')) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    expect(text).toContain(': heartbeat');
    expect(s.streamSignals).toHaveLength(1);
    expect(s.streamSignals[0]?.aborted).toBe(false);
    await reader.cancel();
    await expect.poll(() => s.streamSignals[0]?.aborted, { timeout: 2000 }).toBe(true);
    await s.ctx.request('POST', `/api/agent/runs/${started.run.id}/cancel`, { token: s.alice.token });
  });

  it('answers a plain 404 before streaming for an unknown run', async () => {
    const s = await setup(QUICK);
    await expectError(
      await s.ctx.request('GET', '/api/agent/runs/00000000-0000-4000-8000-000000000000/events', {
        token: s.alice.token,
      }),
      404,
      'run_not_found',
    );
  });
});
