import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, startTestServer, type TestServer } from '../helpers/start-test-server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.close();
});

interface StoredMessage {
  run_id: string | null;
  step: number;
  message: {
    role: string;
    content: string | { type: string; text?: string }[];
    providerOptions?: { troupe?: { partial?: boolean; run_status?: string } };
  };
}

describe('cancel keeps what was said (issue 18 item 6), over real HTTP', () => {
  it('stores the streamed part of a cancelled answer, marked, and the conversation goes on', async () => {
    const { conversationId, runId } = await server.chat('Please be slow about it');
    let cancelled: Promise<Response> | undefined;
    let deltas = 0;
    // The demo's "slow" answer streams for ~8 s; cancel once two text deltas arrived.
    const frames = await readSse(await server.api(`/api/agent/runs/${runId}/events`), (frame) => {
      if (frame.event === 'message_delta' && ++deltas === 2) {
        cancelled = server.api(`/api/agent/runs/${runId}/cancel`, { method: 'POST' });
      }
    });
    expect((await cancelled)?.status).toBe(200);
    const end = JSON.parse(frames.at(-1)?.data ?? '{}') as {
      type: string;
      payload: { status: string; output: unknown };
    };
    expect(end).toMatchObject({ type: 'end', payload: { status: 'cancelled', output: null } });
    const said = frames
      .filter((frame) => frame.event === 'message_delta')
      .map((frame) => (JSON.parse(frame.data) as { payload: { text: string } }).payload.text)
      .join('');
    // At least the two deltas seen before the cancel; far from the whole answer.
    expect(said.length).toBeGreaterThanOrEqual(16);
    expect(said).toMatch(/^You asked for so/);
    expect(said).not.toContain('If you are still reading');

    const listed = await server.api(`/api/conversations/${conversationId}/messages`);
    const { messages } = (await listed.json()) as { messages: StoredMessage[] };
    const last = messages.at(-1);
    expect(last).toMatchObject({
      run_id: runId,
      step: 1,
      message: {
        role: 'assistant',
        content: [{ type: 'text', text: said }],
        providerOptions: { troupe: { partial: true, run_status: 'cancelled' } },
      },
    });

    const posted = await server.api(`/api/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ content: 'Never mind, just say hello' }),
    });
    const { run: next } = (await posted.json()) as { run: { id: string } };
    const awaited = await server.api(`/api/agent/runs/${next.id}/await?timeout_ms=20000`);
    const { run: finished } = (await awaited.json()) as { run: { status: string; output: string } };
    expect(finished.status).toBe('completed');
    expect(finished.output).toContain('Never mind, just say hello');
  });
});
