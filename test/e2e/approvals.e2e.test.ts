import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSseFrames } from '../helpers/read-sse-frames.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';

/**
 * Human approvals over real HTTP on loopback: a main agent in `default` approval mode calls `write_file`
 * (the demo scenario's default rule), the run parks, and the decision sent to
 * `POST /api/agent/runs/{id}/approvals/{tool_call_id}` decides whether the file is written.
 */
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  const created = await server.api('/api/agent', {
    method: 'POST',
    body: JSON.stringify({
      name: 'Careful writer',
      slug: 'careful-writer',
      config: { model: 'scripted:demo', tools: ['read_file', 'write_file'], tool_approval_mode: 'default' },
    }),
  });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await server.close();
});

interface Approval {
  run_id: string;
  tool_call_id: string;
  tool_name: string;
  status: string;
  args: { path?: string; content?: string };
}

/** Reads the run's SSE stream until an event of `type` arrives (never by polling), and returns its payload. */
async function untilEvent(runId: string, type: string): Promise<Record<string, unknown>> {
  const controller = new AbortController();
  const response = await server.api(`/api/agent/runs/${runId}/events`, { signal: controller.signal });
  expect(response.status).toBe(200);
  let found: Record<string, unknown> | undefined;
  await readSseFrames(response.body as ReadableStream<Uint8Array>, (frames) => {
    const match = frames.find((frame) => frame.event === type);
    if (match && !found) {
      found = (JSON.parse(match.data) as { payload: Record<string, unknown> }).payload;
      controller.abort();
    }
  }).catch((error: unknown) => {
    if (!controller.signal.aborted) throw error;
  });
  if (!found) throw new Error(`run ${runId} ended without a ${type} event`);
  return found;
}

async function parkedRun(content: string) {
  const { conversationId, runId } = await server.chat(content, 'careful-writer');
  const required = await untilEvent(runId, 'approval_required');
  const conversation = await server.troupe.storage.conversations.get(conversationId);
  const project = await server.troupe.storage.projects.get(conversation?.project_id ?? '');
  const note = path.join(project?.workdir ?? '', 'notes/hello.md');
  return { runId, required, note };
}

/** The note's text, '' when missing (conversations of one user share the Default project's workdir). */
function noteText(file: string): string {
  return existsSync(file) ? readFileSync(file, 'utf8') : '';
}

async function runOf(runId: string): Promise<{ status: string; output: string | null }> {
  const response = await server.api(`/api/agent/runs/${runId}/await?timeout_ms=20000`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { run: { status: string; output: string | null } }).run;
}

describe('approvals over HTTP', () => {
  it('approving a pending write_file resumes the run, which writes the file and completes', async () => {
    const { runId, required, note } = await parkedRun('approve this note');
    expect(required).toMatchObject({ name: 'write_file' });
    const current = (await (await server.api(`/api/agent/runs/${runId}`)).json()) as { run: { status: string } };
    expect(current.run.status).toBe('input_required');
    const { approvals } = (await (await server.api(`/api/agent/runs/${runId}/approvals`)).json()) as {
      approvals: Approval[];
    };
    expect(approvals).toMatchObject([
      { tool_name: 'write_file', status: 'pending', args: { path: 'notes/hello.md' } },
    ]);
    const [pending] = approvals;
    expect(pending?.tool_call_id).toBe(required.tool_call_id);
    // Nothing is written before the decision.
    expect(noteText(note)).not.toContain('approve this note');

    const decided = await server.api(`/api/agent/runs/${runId}/approvals/${pending?.tool_call_id ?? ''}`, {
      method: 'POST',
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(decided.status).toBe(200);
    expect(((await decided.json()) as { approval: Approval }).approval.status).toBe('approved');

    const done = await runOf(runId);
    expect(done.status).toBe('completed');
    expect(readFileSync(note, 'utf8')).toBe('# Hello\n\napprove this note\n');
    expect(done.output).toContain('You said: "approve this note"');
    // A second decision is refused: the approval is no longer pending.
    const again = await server.api(`/api/agent/runs/${runId}/approvals/${pending?.tool_call_id ?? ''}`, {
      method: 'POST',
      body: JSON.stringify({ decision: 'reject' }),
    });
    expect(again.status).toBe(409);
  });

  it('rejecting it resumes the run without writing the file', async () => {
    const { runId, required, note } = await parkedRun('reject this note');
    const rejected = await server.api(`/api/agent/runs/${runId}/approvals/${String(required.tool_call_id)}`, {
      method: 'POST',
      body: JSON.stringify({ decision: 'reject', comment: 'not today' }),
    });
    expect(rejected.status).toBe(200);
    const done = await runOf(runId);
    expect(done.status).toBe('completed');
    expect(noteText(note)).not.toContain('reject this note');
    const { approvals } = (await (await server.api(`/api/agent/runs/${runId}/approvals`)).json()) as {
      approvals: Approval[];
    };
    expect(approvals.map((approval) => approval.status)).toEqual(['rejected']);
  });
});
