import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, startTestServer, type TestServer } from '../helpers/start-test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

interface Update {
  run_id: string;
  kind: string;
  slug: string;
  status: string;
  child_conversation_id: string;
}

describe('delegation over real HTTP: the demo assistant delegates to the analyst expert', () => {
  it("shows B's run on A's stream as subagent_update (kind delegation) and in A's status panel", async () => {
    const { conversationId, runId } = await server.chat('What would the analyst recommend for our pricing?');
    const frames = await readSse(await server.api(`/api/agent/runs/${runId}/events`));
    const updates = frames
      .filter((frame) => frame.event === 'subagent_update')
      .map((frame) => (JSON.parse(frame.data) as { payload: Update }).payload);
    expect(updates.length).toBeGreaterThan(0);
    expect(new Set(updates.map((update) => `${update.kind}:${update.slug}`))).toEqual(
      new Set(['delegation:analyst']),
    );
    const statuses = updates.map((update) => update.status);
    expect(statuses[0]).toBe('pending');
    expect(statuses).toContain('running');
    expect(statuses.at(-1)).toBe('completed');

    const end = JSON.parse(frames.at(-1)?.data ?? '{}') as {
      type: string;
      payload: { status: string; output: string };
    };
    expect(end.type).toBe('end');
    expect(end.payload.status).toBe('completed');
    expect(end.payload.output).toContain('The analyst expert answered:');
    expect(end.payload.output).toContain('Analysis of: What would the analyst recommend for our pricing?');

    const panel = (await (await server.api(`/api/conversations/${conversationId}/subagents`)).json()) as {
      subagents: {
        run_id: string;
        kind: string;
        slug: string;
        status: string;
        parent_run_id: string;
        result: { output: string };
      }[];
    };
    expect(panel.subagents).toHaveLength(1);
    expect(panel.subagents[0]).toMatchObject({
      run_id: updates[0]?.run_id,
      kind: 'delegation',
      slug: 'analyst',
      status: 'completed',
      parent_run_id: runId,
    });
    expect(panel.subagents[0]?.result.output).toContain('Analysis of:');

    // B worked in its own delegation conversation, which stays out of the chat list.
    const child = (await (
      await server.api(`/api/conversations/${updates[0]?.child_conversation_id}`)
    ).json()) as {
      conversation: { status: string; title: string };
    };
    expect(child.conversation).toMatchObject({ status: 'delegation', title: 'Delegation: Analyst' });
    const list = (await (await server.api('/api/conversations')).json()) as {
      conversations: { id: string }[];
    };
    expect(list.conversations.map((entry) => entry.id)).not.toContain(updates[0]?.child_conversation_id);
    const tree = (await (await server.api(`/api/agent/runs/${runId}/tree`)).json()) as {
      tree: { children: { run: { run_type: string; depth: number } }[] };
    };
    expect(tree.tree.children.map((node) => [node.run.run_type, node.run.depth])).toEqual([
      ['delegation', 1],
    ]);
  });

  it('serves the policy and POST /api/delegate to clients, with failures as HTTP 200 results', async () => {
    const policy = await server.api('/api/me/delegation-policy');
    expect(await policy.json()).toMatchObject({ policy: 'all', whitelist: [] });

    const done = await server.api('/api/delegate', {
      method: 'POST',
      body: JSON.stringify({ expert: 'analyst', task: 'Which risks matter most?' }),
    });
    expect(done.status).toBe(200);
    const answer = (await done.json()) as { status: string; output: string };
    expect(answer.status).toBe('completed');
    expect(answer.output).toContain('Risk analysis for:');

    const unpublished = await server.api('/api/agent/analyst/unpublish', { method: 'POST' });
    expect(unpublished.status).toBe(200);
    const refused = await server.api('/api/delegate', {
      method: 'POST',
      body: JSON.stringify({ expert: 'analyst', task: 'x' }),
    });
    expect(refused.status).toBe(200);
    expect(await refused.json()).toMatchObject({ status: 'failed', error: 'Expert is not published' });
    await server.api('/api/agent/analyst/publish', { method: 'POST' });

    await server.api('/api/agent/analyst', { method: 'PUT', body: JSON.stringify({ delegatable: false }) });
    const closed = await server.api('/api/delegate', {
      method: 'POST',
      body: JSON.stringify({ expert: 'analyst', task: 'x' }),
    });
    expect(await closed.json()).toMatchObject({ status: 'failed', error: 'Expert is not delegatable' });
    await server.api('/api/agent/analyst', { method: 'PUT', body: JSON.stringify({ delegatable: true }) });

    const missing = await server.api('/api/delegate', {
      method: 'POST',
      body: JSON.stringify({ expert: 'nobody', task: 'x' }),
    });
    expect(await missing.json()).toMatchObject({
      status: 'failed',
      error: 'Expert not found or access denied',
    });
    const malformed = await server.api('/api/delegate', {
      method: 'POST',
      body: JSON.stringify({ expert: 'analyst' }),
    });
    expect(malformed.status).toBe(400);
  });

  it('with policy none, an @mention still brings the analyst into the roster', async () => {
    const put = await server.api('/api/me/delegation-policy', {
      method: 'PUT',
      body: JSON.stringify({ policy: 'none' }),
    });
    expect(await put.json()).toEqual({ policy: 'none', whitelist: [], max_whitelist: 10, dropped: [] });
    const { runId } = await server.chat('Please ask @analyst about the launch plan');
    const result = (await (await server.api(`/api/agent/runs/${runId}/await?timeout_ms=20000`)).json()) as {
      run: { status: string; output: string };
    };
    expect(result.run.status).toBe('completed');
    expect(result.run.output).toContain('Analysis of: Please ask @analyst about the launch plan');
    await server.api('/api/me/delegation-policy', { method: 'PUT', body: JSON.stringify({ policy: 'all' }) });
  });
});
