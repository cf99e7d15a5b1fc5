/**
 * The demo's `ask` and `report` branches and attachments, over real HTTP on loopback against the real
 * composition with the demo data: what a client of `npm start` sees.
 */
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

async function json<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}

describe('the demo asks, presents artifacts and reads attachments', () => {
  it('asks a question on one SSE stream, takes the answer and finishes with it', async () => {
    const { runId } = await server.chat('Please ask me before you summarise');
    const events = await server.api(`/api/agent/runs/${runId}/events`);
    const answered: Promise<Response>[] = [];
    const frames = await readSse(events, (frame) => {
      if (frame.event !== 'question_required') return;
      const { payload } = JSON.parse(frame.data) as {
        payload: { tool_call_id: string; questions: { question: string; options: string[] }[] };
      };
      expect(payload.questions).toEqual([
        { question: 'Which format should the summary have?', options: ['bullet points', 'one paragraph'] },
      ]);
      answered.push(
        server.api(`/api/agent/runs/${runId}/answers/${payload.tool_call_id}`, {
          method: 'POST',
          body: JSON.stringify({ answers: ['one paragraph'] }),
        }),
      );
    });
    expect(answered).toHaveLength(1);
    await json(await (answered[0] as Promise<Response>));
    const types = frames.map((frame) => frame.event);
    expect(types.indexOf('question_required')).toBeLessThan(types.lastIndexOf('tool_result'));
    expect(types.at(-1)).toBe('end');
    const result = await json<{ status: string; output: string }>(
      await server.api(`/api/agent/runs/${runId}/result`),
    );
    expect(result.status).toBe('completed');
    expect(result.output).toContain('Answer: one paragraph');
  });

  it('writes a report, presents it as an artifact and serves it for download', async () => {
    const { conversationId, runId } = await server.chat('Write me a report on the launch');
    await server.api(`/api/agent/runs/${runId}/await?timeout_ms=30000`);
    const { artifacts } = await json<{ artifacts: { id: string; path: string; title: string }[] }>(
      await server.api(`/api/conversations/${conversationId}/artifacts`),
    );
    expect(artifacts).toEqual([expect.objectContaining({ path: 'reports/report.md', title: 'Demo report' })]);
    const download = await server.api(
      `/api/conversations/${conversationId}/artifacts/${artifacts[0]?.id}/download`,
    );
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toContain('filename="report.md"');
    expect(await download.text()).toContain('Requested as: Write me a report on the launch');
  });

  it('stores an uploaded file in the workdir and names it in the message', async () => {
    const created = await json<{ conversation: { id: string; project_id: string } }>(
      await server.api('/api/conversations', {
        method: 'POST',
        body: JSON.stringify({ agent_id: 'assistant' }),
      }),
      201,
    );
    const form = new FormData();
    form.append('files', new Blob(['launch date: May 4'], { type: 'text/plain' }), 'plan.txt');
    const { attachments } = await json<{ attachments: { id: string; path: string }[] }>(
      await fetch(`${server.url}/api/conversations/${created.conversation.id}/attachments`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.token}` },
        body: form,
      }),
      201,
    );
    expect(attachments.map((entry) => entry.path)).toEqual(['uploads/plan.txt']);
    const project = await server.troupe.storage.projects.get(created.conversation.project_id);
    expect(readFileSync(path.join(project?.workdir ?? '', 'uploads/plan.txt'), 'utf8')).toBe(
      'launch date: May 4',
    );
    const { run } = await json<{ run: { id: string; input: { message: string } } }>(
      await server.api(`/api/conversations/${created.conversation.id}/messages`, {
        method: 'POST',
        body: JSON.stringify({
          content: 'Here is the plan',
          attachments: attachments.map((entry) => entry.id),
        }),
      }),
      202,
    );
    expect(run.input.message).toBe('Here is the plan\n\nAttached files: uploads/plan.txt (18 B)');
    const done = await json<{ run: { status: string } }>(
      await server.api(`/api/agent/runs/${run.id}/await?timeout_ms=30000`),
    );
    expect(done.run.status).toBe('completed');
  });
});
