import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, startTestServer, type TestServer } from '../helpers/start-test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

describe('a conversation over real HTTP on loopback', () => {
  it('creates a conversation, streams the run over SSE and reads the result', async () => {
    const created = await server.api('/api/conversations', {
      method: 'POST',
      body: JSON.stringify({ agent_id: 'assistant', title: 'e2e' }),
    });
    expect(created.status).toBe(201);
    const { conversation } = (await created.json()) as { conversation: { id: string; project_id: string } };

    const posted = await server.api(`/api/conversations/${conversation.id}/messages`, {
      method: 'POST',
      body: JSON.stringify({ content: 'Hello from the e2e test', request_id: 'e2e-1' }),
    });
    expect(posted.status).toBe(202);
    const { status, run } = (await posted.json()) as { status: string; run: { id: string } };
    expect(status).toBe('started');

    const events = await server.api(`/api/agent/runs/${run.id}/events`);
    expect(events.headers.get('content-type')).toContain('text/event-stream');
    const frames = await readSse(events);
    const types = frames.map((frame) => frame.event);
    expect(types[0]).toBe('metadata');
    expect(types.at(-1)).toBe('end');
    expect(types).toContain('message_delta');
    expect(types).toContain('tool_call');
    expect(frames.map((frame) => Number(frame.id))).toEqual(frames.map((_, index) => index + 1));
    const metadata = JSON.parse(frames[0]?.data ?? '{}') as { payload: { model: string } };
    expect(metadata.payload.model).toContain('scripted');

    const result = (await (await server.api(`/api/agent/runs/${run.id}/result`)).json()) as {
      status: string;
      output: string;
    };
    expect(result.status).toBe('completed');
    expect(result.output).toContain('Hello from the e2e test');

    // The note the scripted agent wrote is a real file in the project's workdir.
    const project = await server.troupe.storage.projects.get(conversation.project_id);
    const note = readFileSync(path.join(project?.workdir ?? '', 'notes/hello.md'), 'utf8');
    expect(note).toContain('Hello from the e2e test');

    // Replaying the same request_id returns the same run, without a second run.
    const replay = await server.api(`/api/conversations/${conversation.id}/messages`, {
      method: 'POST',
      body: JSON.stringify({ content: 'Hello from the e2e test', request_id: 'e2e-1' }),
    });
    expect(((await replay.json()) as { status: string; run: { id: string } }).run.id).toBe(run.id);
  });

  it('resumes the SSE stream from Last-Event-ID without gaps', async () => {
    const { runId } = await server.chat('resume me');
    const all = await readSse(await server.api(`/api/agent/runs/${runId}/events`));
    const resumed = await readSse(
      await server.api(`/api/agent/runs/${runId}/events`, { headers: { 'last-event-id': '4' } }),
    );
    expect(resumed.map((frame) => frame.id)).toEqual(all.slice(4).map((frame) => frame.id));
    const viaQuery = await readSse(await server.api(`/api/agent/runs/${runId}/events?after_seq=2`));
    expect(viaQuery.map((frame) => frame.id)).toEqual(all.slice(2).map((frame) => frame.id));
  });

  it('answers 204 to a resume at or past `end`, so a standard EventSource stops reconnecting', async () => {
    const { runId } = await server.chat('resume me to the end');
    const url = `/api/agent/runs/${runId}/events`;
    const all = await readSse(await server.api(url));
    expect(all.at(-1)?.event).toBe('end');
    const endSeq = Number(all.at(-1)?.id);
    // What an EventSource sends when it reconnects after the stream closed, and the query equivalent.
    for (const [suffix, lastEventId] of [
      ['', String(endSeq)],
      ['', String(endSeq + 50)],
      [`?after_seq=${endSeq}`, undefined],
    ] as const) {
      const response = await server.api(
        `${url}${suffix}`,
        lastEventId ? { headers: { 'last-event-id': lastEventId } } : {},
      );
      expect(response.status).toBe(204);
      expect(await response.text()).toBe('');
    }
    // One short of `end` still gets `end`, and the stream closes after it.
    const tail = await readSse(await server.api(url, { headers: { 'last-event-id': String(endSeq - 1) } }));
    expect(tail.map((frame) => frame.event)).toEqual(['end']);
  });

  it('closes a stream resumed past the last event of a live run once the run ends', async () => {
    const { runId } = await server.chat('please be slow');
    const stream = await server.api(`/api/agent/runs/${runId}/events?after_seq=100000`);
    expect(stream.status).toBe(200);
    await server.api(`/api/agent/runs/${runId}/cancel`, { method: 'POST' });
    // The run's `end` lies before the cursor: nothing is sent, but the stream must end rather than idle.
    expect(await readSse(stream)).toEqual([]);
  });

  it('cancels a slow run over HTTP and the stream ends with cancelled', async () => {
    const { runId } = await server.chat('please be slow');
    let cancelSent = false;
    const frames = await readSse(await server.api(`/api/agent/runs/${runId}/events`), (frame) => {
      if (frame.event === 'message_delta' && !cancelSent) {
        cancelSent = true;
        void server.api(`/api/agent/runs/${runId}/cancel`, { method: 'POST' });
      }
    });
    expect(frames.at(-1)?.event).toBe('end');
    expect(JSON.parse(frames.at(-1)?.data ?? '{}')).toMatchObject({ payload: { status: 'cancelled' } });
  });
});

describe('the conversation list over real HTTP', () => {
  interface Listed {
    id: string;
    title: string;
    status: string;
  }
  const list = async (query: string, token?: string): Promise<Listed[]> => {
    const response = await server.api(
      `/api/conversations?${query}`,
      token ? { headers: { authorization: `Bearer ${token}` } } : {},
    );
    expect(response.status).toBe(200);
    return ((await response.json()) as { conversations: Listed[] }).conversations;
  };

  it('titles an untitled conversation from its first message, searches titles, archives and restores, all per user', async () => {
    const { conversationId, runId } = await server.chat(
      'What changed in the billing code since Monday?\n\nBe brief.',
    );
    await server.api(`/api/agent/runs/${runId}/await?timeout_ms=30000`);
    const titled = (await (await server.api(`/api/conversations/${conversationId}`)).json()) as {
      conversation: Listed;
    };
    expect(titled.conversation.title).toBe('What changed in the billing code since Monday? Be brief.');
    expect((await list('q=BILLING')).map((item) => item.id)).toEqual([conversationId]);

    // Archive, find it under the Archived filter, then undo.
    const archive = (status: string, token?: string) =>
      server.api(`/api/conversations/${conversationId}`, {
        method: 'PATCH',
        body: JSON.stringify({ status }),
        ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}),
      });
    expect((await archive('archived')).status).toBe(200);
    expect(await list('q=billing')).toEqual([]);
    expect((await list('status=archived&q=billing')).map((item) => item.id)).toEqual([conversationId]);

    // Another user neither finds it nor restores it.
    const bob = await server.troupe.storage.users.create({ name: 'bob-list', role: 'member' });
    const { token: bobToken } = await server.troupe.auth.issueToken(bob.id, 'e2e');
    expect(await list('status=archived&q=billing', bobToken)).toEqual([]);
    const refused = await archive('active', bobToken);
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('conversation_not_found');

    expect((await archive('active')).status).toBe(200);
    expect((await list('q=billing')).map((item) => [item.id, item.status])).toEqual([
      [conversationId, 'active'],
    ]);
  });
});
