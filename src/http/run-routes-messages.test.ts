import { describe, expect, it } from 'vitest';
import type { Run } from '../core/records/run.js';
import type { AwaitedRun, RunResult, StartedRun } from '../runtime/runs/run-service-api.js';
import type { TestUser } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';
import { post, QUICK, SLOW, useRunRoutesSetup } from '../../test/helpers/http/use-run-routes-setup.js';

const setup = useRunRoutesSetup();

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
