import { beforeAll, describe, expect, it } from 'vitest';
import { json, useRemoteExpertPair } from '../helpers/use-remote-expert-pair.js';
import { readSse, type TestServer } from '../helpers/start-test-server.js';

/**
 * Remote A2A experts (docs/interoperability.md) between two real Troupe servers on loopback: server A registers an expert
 * of server B by its agent card; A's runs delegate to it, stream its task, cancel it and resume it.
 */
const pair = useRemoteExpertPair();
const { register, cardOf, delegate, remoteRun, remoteStatus, remoteTaskOf } = pair;
let local: TestServer;
let remote: TestServer;
beforeAll(() => {
  local = pair.local();
  remote = pair.remote();
});

describe('registering a remote expert', () => {
  it('keeps its credentials write-only: redacted on read, kept when the placeholder is sent back', async () => {
    const { agent } = await json<{
      agent: { id: string; config: { a2a: { headers: Record<string, string> } } };
    }>(await local.api('/api/agent/remote-analyst'));
    expect(agent.config.a2a.headers).toEqual({ authorization: '[redacted]' });
    await json(
      await local.api(`/api/agent/${agent.id}`, {
        method: 'PUT',
        body: JSON.stringify({ config: agent.config }),
      }),
    );
    expect((await delegate('remote-analyst', 'Assess the risks of a price change')).status).toBe('completed');
    // The placeholder names no stored value once the card URL changes: it would send the secret elsewhere.
    const moved = await local.api(`/api/agent/${agent.id}`, {
      method: 'PUT',
      body: JSON.stringify({
        config: { a2a: { ...agent.config.a2a, card_url: 'https://elsewhere.example/card.json' } },
      }),
    });
    expect(moved.status).toBe(400);
    expect(((await moved.json()) as { error: { code: string } }).error.code).toBe('validation_failed');
  });

  it('is for admins only, and config.a2a only for backend a2a', async () => {
    const bob = await local.troupe.storage.users.create({ name: 'bob-remote', role: 'member' });
    const { token } = await local.troupe.auth.issueToken(bob.id, 'e2e');
    const asBob = (body: object) =>
      fetch(`${local.url}/api/agent`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const refused = await asBob({
      name: 'Mine',
      backend: 'a2a',
      config: { a2a: { card_url: cardOf('analyst') } },
    });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('forbidden');
    const misplaced = await asBob({ name: 'Chatty', config: { a2a: { card_url: cardOf('analyst') } } });
    expect(misplaced.status).toBe(400);
    const noCard = await register('remote-nocard', '', {});
    expect(noCard.status).toBe(400);
    const notHttp = await register('remote-file', 'file:///etc/passwd', {});
    expect(notHttp.status).toBe(400);
  });
});

describe('delegating to a remote expert', () => {
  it('runs the task on the remote server and answers with its result', async () => {
    const answer = await delegate('remote-analyst', 'Assess the risks of moving to annual billing');
    expect(answer.status).toBe('completed');
    expect(answer.output).toContain('Risk analysis for: Assess the risks of moving to annual billing');
    const taskId = await remoteTaskOf(answer.run_id);
    const task = await remoteRun(taskId);
    expect(task?.status).toBe('completed');
    expect(task?.input.message).toBe('Assess the risks of moving to annual billing');
  });

  it("streams the remote task into a main agent's run and status panel through the delegate tool", async () => {
    await json(
      await local.api('/api/agent', {
        method: 'POST',
        body: JSON.stringify({ slug: 'caller', name: 'Caller', config: { model: 'scripted:caller' } }),
      }),
    );
    const { conversationId, runId } = await local.chat('What are the risks of a rewrite?', 'caller');
    const frames = await readSse(await local.api(`/api/agent/runs/${runId}/events`));
    const end = JSON.parse(frames.at(-1)?.data ?? '{}') as { payload: { status: string; output: string } };
    expect(end.payload.status).toBe('completed');
    expect(end.payload.output).toContain('Risk analysis for: What are the risks of a rewrite?');
    const updates = frames
      .filter((frame) => frame.event === 'subagent_update')
      .map(
        (frame) =>
          (JSON.parse(frame.data) as { payload: { kind: string; slug: string; status: string } }).payload,
      );
    expect(updates.map((update) => `${update.kind}:${update.slug}`)).toContain('delegation:remote-analyst');
    expect(updates.at(-1)?.status).toBe('completed');
    const panel = await json<{ subagents: { slug: string; status: string; run_id: string }[] }>(
      await local.api(`/api/conversations/${conversationId}/subagents`),
    );
    const child = panel.subagents.find((entry) => entry.slug === 'remote-analyst');
    expect(child?.status).toBe('completed');
    const childFrames = await readSse(await local.api(`/api/agent/runs/${child?.run_id ?? ''}/events`));
    const streamed = childFrames
      .filter((frame) => frame.event === 'message_delta')
      .map((frame) => (JSON.parse(frame.data) as { payload: { text: string } }).payload.text)
      .join('');
    expect(streamed).toContain('Risk analysis for');
  });

  it('is refused to a user the expert is not visible to, like a local expert', async () => {
    const carol = await local.troupe.storage.users.create({ name: 'carol-remote', role: 'member' });
    const { token } = await local.troupe.auth.issueToken(carol.id, 'e2e');
    const response = await fetch(`${local.url}/api/delegate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ expert: 'remote-slow', task: 'Think about it' }),
    });
    const body = (await response.json()) as { status: string; error?: string };
    expect(body.status).toBe('failed');
    expect(body.error).toMatch(/not found or access denied/i);
  });

  it('cancels the remote task when the delegation is cancelled', async () => {
    const started = await delegate('remote-slow', 'Take your time', 0);
    const taskId = await remoteTaskOf(started.run_id);
    expect(await remoteStatus(taskId, 'running')).toBe('running');
    await json(await local.api(`/api/agent/runs/${started.run_id}/cancel`, { method: 'POST' }));
    expect(await remoteStatus(taskId, 'cancelled')).toBe('cancelled');
    const run = await local.troupe.storage.runs.get(started.run_id);
    expect(['cancel_requested', 'cancelled']).toContain(run?.status);
  });

  it('resumes a handed-back run by its remote task id instead of sending the task again', async () => {
    const started = await delegate('remote-slow', 'Resume me', 0);
    const taskId = await remoteTaskOf(started.run_id);
    // A worker shutdown hands the run back as pending, with the remote task still working.
    await local.troupe.executor.stop();
    expect((await local.troupe.storage.runs.get(started.run_id))?.status).toBe('pending');
    await local.troupe.executor.start();
    await local.troupe.executor.execute(started.run_id);
    const finished = await local.troupe.storage.runs.get(started.run_id);
    expect(finished?.status).toBe('completed');
    expect(finished?.output).toBe('Slowly considered: Resume me');
    const remoteTasks = (
      await remote.troupe.storage.runs.listByConversation((await remoteRun(taskId))?.conversation_id ?? '')
    ).filter((run) => run.input.message === 'Resume me');
    expect(remoteTasks.map((run) => run.id)).toEqual([taskId]);
  });

  it('ends failed with a clear error when the remote cannot be reached', async () => {
    await json(await register('remote-gone', 'http://127.0.0.1:9/a2a/none/.well-known/agent-card.json', {}));
    const answer = await delegate('remote-gone', 'Anyone there?');
    expect(answer.status).toBe('failed');
    expect(answer.error_type).toBe('remote_expert_unavailable');
    expect(answer.error).toMatch(/could not be reached/);
  });
});
