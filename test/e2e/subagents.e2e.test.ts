import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, startTestServer, type TestServer } from '../helpers/start-test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

interface PanelEntry {
  run_id: string;
  slug: string;
  status: string;
  description: string;
  child_thread_id: string;
  result: { output: string | null } | null;
}

describe('subagents over real HTTP: the demo "team" conversation', () => {
  it('streams subagent_update events on the parent stream and fills the status panel', async () => {
    const { conversationId, runId } = await server.chat('Ask the team about release risks');

    const frames = await readSse(await server.api(`/api/agent/runs/${runId}/events`));
    const updates = frames
      .filter((frame) => frame.event === 'subagent_update')
      .map((frame) => (JSON.parse(frame.data) as { payload: { slug: string; status: string } }).payload);
    for (const slug of ['researcher', 'summarizer']) {
      const statuses = updates.filter((update) => update.slug === slug).map((update) => update.status);
      expect(statuses[0]).toBe('pending');
      expect(statuses).toContain('running');
      expect(statuses.at(-1)).toBe('completed');
    }
    const end = JSON.parse(frames.at(-1)?.data ?? '{}') as { payload: { status: string; output: string } };
    expect(end.payload.status).toBe('completed');
    expect(end.payload.output).toContain('The team is done');

    const panel = (await (await server.api(`/api/conversations/${conversationId}/subagents`)).json()) as {
      subagents: PanelEntry[];
    };
    expect(panel.subagents.map((entry) => entry.slug).sort()).toEqual(['researcher', 'summarizer']);
    for (const entry of panel.subagents) {
      expect(entry.status).toBe('completed');
      expect(entry.child_thread_id).toMatch(/^subagent_[0-9a-f]{55}$/);
      expect(entry.description).toContain('release risks');
      expect(entry.result?.output).toContain('release risks');
    }
    // The child thread is readable as a conversation of its own, hidden from the chat list.
    const list = (await (await server.api('/api/conversations')).json()) as {
      conversations: { id: string }[];
    };
    expect(list.conversations.map((entry) => entry.id)).toEqual([conversationId]);
  });

  it('cancels a child from the API while the parent keeps going', async () => {
    const { conversationId, runId } = await server.chat('team, please look at the backlog');
    let cancelled: Promise<Response> | undefined;
    const frames = await readSse(await server.api(`/api/agent/runs/${runId}/events`), (frame) => {
      if (frame.event !== 'subagent_update' || cancelled) return;
      const update = (JSON.parse(frame.data) as { payload: { run_id: string; slug: string; status: string } })
        .payload;
      if (update.slug === 'researcher' && update.status === 'running') {
        cancelled = server.api(`/api/agent/runs/${update.run_id}/cancel`, { method: 'POST' });
      }
    });
    expect((await cancelled)?.status).toBe(200);
    const end = JSON.parse(frames.at(-1)?.data ?? '{}') as { payload: { status: string } };
    expect(end.payload.status).toBe('completed');
    const panel = (await (await server.api(`/api/conversations/${conversationId}/subagents`)).json()) as {
      subagents: PanelEntry[];
    };
    expect(panel.subagents.find((entry) => entry.slug === 'researcher')?.status).toBe('cancelled');
    expect(panel.subagents.find((entry) => entry.slug === 'summarizer')?.status).toBe('completed');
  });
});
