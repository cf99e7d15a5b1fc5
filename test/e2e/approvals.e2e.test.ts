import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { eventually } from '../helpers/eventually.js';
import { readSseFrames, type SseFrame } from '../helpers/read-sse-frames.js';
import { copyScenarios, withRuleFirst } from '../helpers/scenario-dir.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';

/**
 * Human approvals over real HTTP on loopback: a main agent in `default` approval mode calls `write_file`
 * (the demo scenario's default rule), the run parks, and the decision sent to
 * `POST /api/agent/runs/{id}/approvals/{tool_call_id}` decides whether the file is written.
 */
// "for the whole run": two write_file calls in one step, a third in the next, then a task for the scribe
// subagent, whose own write_file the approval for the parent run must not reach.
const scenarioDir = copyScenarios((file, scenario) =>
  file !== 'demo.yaml'
    ? scenario
    : withRuleFirst(scenario, {
        name: 'whole-run',
        when: { contains: 'for the whole run' },
        steps: [
          {
            text: 'Writing two notes.',
            tool_calls: [
              { name: 'write_file', args: { path: 'run-notes/one.md', content: 'one' } },
              { name: 'write_file', args: { path: 'run-notes/two.md', content: 'two' } },
            ],
          },
          {
            text: 'And a third.',
            tool_calls: [{ name: 'write_file', args: { path: 'run-notes/three.md', content: 'three' } }],
          },
          {
            text: 'Asking the scribe.',
            tool_calls: [{ name: 'task', args: { subagent_slug: 'scribe', description: 'write it down' } }],
          },
          { text: 'All done.' },
        ],
      }),
);
writeFileSync(
  path.join(scenarioDir, 'scribe.yaml'),
  stringify({
    rules: [
      {
        steps: [
          {
            text: 'Writing it down.',
            tool_calls: [
              { name: 'write_file', args: { path: 'run-notes/scribe.md', content: 'sub' }, unoffered: true },
            ],
          },
          { text: 'Scribe: {{last_tool_result}}' },
        ],
      },
    ],
  }),
);

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ scenarioDir });
  const scribe = await server.api('/api/agent', {
    method: 'POST',
    body: JSON.stringify({
      name: 'Scribe',
      slug: 'scribe',
      backend: 'subagent',
      is_subagent: true,
      config: { model: 'scripted:scribe', tools: ['write_file'] },
    }),
  });
  expect(scribe.status).toBe(201);
  const created = await server.api('/api/agent', {
    method: 'POST',
    body: JSON.stringify({
      name: 'Careful writer',
      slug: 'careful-writer',
      config: {
        model: 'scripted:demo',
        tools: ['read_file', 'write_file'],
        subagents: ['scribe'],
        tool_approval_mode: 'default',
      },
    }),
  });
  expect(created.status).toBe(201);
});
afterAll(async () => {
  await server.close();
  rmSync(scenarioDir, { recursive: true, force: true });
});

interface Approval {
  run_id: string;
  tool_call_id: string;
  tool_name: string;
  status: string;
  scope: string;
  comment: string | null;
  args: { path?: string; content?: string };
}

async function approvalsOf(runId: string): Promise<Approval[]> {
  const response = await server.api(`/api/agent/runs/${runId}/approvals`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { approvals: Approval[] }).approvals;
}

function decide(runId: string, toolCallId: string, body: Record<string, unknown>): Promise<Response> {
  return server.api(`/api/agent/runs/${runId}/approvals/${toolCallId}`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
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
    const current = (await (await server.api(`/api/agent/runs/${runId}`)).json()) as {
      run: { status: string };
    };
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
    const approvals = await approvalsOf(runId);
    expect(approvals.map((approval) => [approval.status, approval.comment])).toEqual([
      ['rejected', 'not today'],
    ]);
    // The comment is the reason the model read in the call's result.
    const { conversation_id: conversationId } = (
      (await (await server.api(`/api/agent/runs/${runId}`)).json()) as { run: { conversation_id: string } }
    ).run;
    const messages = JSON.stringify(
      await (await server.api(`/api/conversations/${conversationId}/messages`)).json(),
    );
    expect(messages).toContain('The user rejected this write_file call: not today.');
    // Clients and the console read the decision as data, from the stored thread as from the stream.
    const refusal = {
      code: 'approval_rejected',
      reason: 'The user rejected this write_file call: not today',
      tool: 'write_file',
      comment: 'not today',
    };
    expect(messages).toContain(JSON.stringify({ troupe: { refusal } }));
    const frames: SseFrame[] = [];
    const stream = await server.api(`/api/agent/runs/${runId}/events`);
    await readSseFrames(stream.body as ReadableStream<Uint8Array>, (chunk) => frames.push(...chunk));
    const result = frames.find((frame) => frame.event === 'tool_result');
    expect((JSON.parse(result?.data ?? '{}') as { payload?: unknown }).payload).toMatchObject({ refusal });
  });

  it("approving for the whole run approves the waiting calls of that tool and its later ones, not its subagent's", async () => {
    const { conversationId, runId } = await server.chat('write these for the whole run', 'careful-writer');
    const pending = await eventually('the run parked on two approvals', 20_000, async () => {
      const approvals = await approvalsOf(runId);
      const run = (await (await server.api(`/api/agent/runs/${runId}`)).json()) as {
        run: { status: string };
      };
      return approvals.length === 2 && run.run.status === 'input_required' ? approvals : undefined;
    });
    // Both calls of the step wait, in whatever order they were asked.
    pending.sort((a, b) => String(a.args.path).localeCompare(String(b.args.path)));
    expect(pending.map((approval) => [approval.args.path, approval.status, approval.scope])).toEqual([
      ['run-notes/one.md', 'pending', 'call'],
      ['run-notes/two.md', 'pending', 'call'],
    ]);
    const [first] = pending;
    // Only an approval covers the run.
    const refused = await decide(runId, first?.tool_call_id ?? '', { decision: 'reject', scope: 'run' });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('validation_failed');

    const decided = await decide(runId, first?.tool_call_id ?? '', { decision: 'approve', scope: 'run' });
    expect(decided.status).toBe(200);
    expect(((await decided.json()) as { approval: Approval }).approval).toMatchObject({
      status: 'approved',
      scope: 'run',
    });
    const done = await runOf(runId);
    expect(done.status).toBe('completed');
    expect(done.output).toBe('All done.');

    // The waiting twin was approved with it; the third call was never asked about.
    const approvals = await approvalsOf(runId);
    approvals.sort((a, b) => String(a.args.path).localeCompare(String(b.args.path)));
    expect(approvals.map((approval) => [approval.args.path, approval.status, approval.scope])).toEqual([
      ['run-notes/one.md', 'approved', 'run'],
      ['run-notes/two.md', 'approved', 'call'],
    ]);
    const conversation = await server.troupe.storage.conversations.get(conversationId);
    const project = await server.troupe.storage.projects.get(conversation?.project_id ?? '');
    const dir = path.join(project?.workdir ?? '', 'run-notes');
    expect(['one', 'two', 'three'].map((name) => noteText(path.join(dir, `${name}.md`)))).toEqual([
      'one',
      'two',
      'three',
    ]);
    // The subagent inherits the approval mode, not the run's approval: write_file stays closed to it.
    expect(existsSync(path.join(dir, 'scribe.md'))).toBe(false);
    const { subagents } = (await (
      await server.api(`/api/conversations/${conversationId}/subagents`)
    ).json()) as {
      subagents: { run_id: string }[];
    };
    expect(subagents).toHaveLength(1);
    const child = await runOf(subagents[0]?.run_id ?? '');
    expect(child.output).toContain('is not available to subagents in this approval mode');
    expect(await approvalsOf(subagents[0]?.run_id ?? '')).toEqual([]);
  });
});
