import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse, startTestServer, type TestServer } from '../helpers/start-test-server.js';

/*
 * Every child-result path carries the runtime's evidence (docs/verified-delegation.md#evidence), in the short form
 * the parent model reads, field by field:
 * `subagent_await` and `subagent_status` of a background subagent that wrote a file and failed a read, and the
 * `delegate` tool's result from the demo analyst expert, which calls no tool.
 */
const SCENARIOS: Record<string, string> = {
  'evidence-boss': `
rules:
  - steps:
      - text: "Starting the helper."
        tool_calls:
          - name: subagent_start
            args: { subagent_slug: evidence-helper, description: "Write the note." }
      - text: "Waiting."
        tool_calls:
          - name: subagent_await
            args: { run_id: "{{run_id}}" }
      - text: "Checking."
        tool_calls:
          - name: subagent_status
            args: { run_id: "{{run_id}}" }
      - text: "Asking the analyst."
        tool_calls:
          - name: delegate
            args: { expert: analyst, task: "Assess the note." }
      - text: "All done."
`,
  'evidence-helper': `
rules:
  - steps:
      - text: "Writing."
        tool_calls:
          - name: write_file
            args: { path: "notes/a.md", content: "the note" }
          - name: read_file
            args: { path: "missing.md" }
      - text: "The note is written."
`,
};

interface ToolResult {
  name: string;
  /** Text, or the JSON a lifecycle tool returns. */
  output: unknown;
  is_error: boolean;
}

let server: TestServer;
let scenarioDir = '';
let results: ToolResult[] = [];

async function ok<T>(response: Response): Promise<T> {
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as T;
}

beforeAll(async () => {
  scenarioDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-evidence-'));
  cpSync(path.resolve(import.meta.dirname, '../../scenarios'), scenarioDir, { recursive: true });
  for (const [name, body] of Object.entries(SCENARIOS))
    writeFileSync(path.join(scenarioDir, `${name}.yaml`), body);
  server = await startTestServer({ scenarioDir });
  await ok(
    await server.api('/api/agent', {
      method: 'POST',
      body: JSON.stringify({
        slug: 'evidence-helper',
        name: 'Evidence helper',
        description: 'Writes notes',
        backend: 'subagent',
        config: { model: 'scripted:evidence-helper', tools: ['write_file', 'read_file'] },
      }),
    }),
  );
  const boss = await ok<{ agent: { id: string } }>(
    await server.api('/api/agent', {
      method: 'POST',
      body: JSON.stringify({
        slug: 'evidence-boss',
        name: 'Evidence boss',
        config: {
          model: 'scripted:evidence-boss',
          tool_approval_mode: 'always_trust',
          subagents: ['evidence-helper'],
        },
      }),
    }),
  );
  const { runId } = await server.chat('Please write the note and have it assessed.', boss.agent.id);
  const frames = await readSse(await server.api(`/api/agent/runs/${runId}/events`));
  const end = JSON.parse(frames.at(-1)?.data ?? '{}') as { payload: { status: string; error?: unknown } };
  expect(end.payload, JSON.stringify(end.payload)).toMatchObject({ status: 'completed' });
  results = frames
    .filter((frame) => frame.event === 'tool_result')
    .map((frame) => (JSON.parse(frame.data) as { payload: ToolResult }).payload);
});
afterAll(async () => {
  await server?.close();
  if (scenarioDir) rmSync(scenarioDir, { recursive: true, force: true });
});

function resultOf(name: string): ToolResult {
  const found = results.find((result) => result.name === name);
  if (!found) throw new Error(`no ${name} result among ${results.map((result) => result.name).join(', ')}`);
  return found;
}

/** A JSON tool result as the object it is (events carry it parsed; a stored one may be text). */
function objectOf<T>(output: unknown): T {
  return (typeof output === 'string' ? JSON.parse(output) : output) as T;
}

/**
 * The helper's evidence as the parent model reads it (docs/verified-delegation.md#what-the-parent-model-sees): two model
 * calls, the failed read and the write counted by name, the path written, its tokens and the failure flag.
 */
function expectHelperEvidence(evidence: string | undefined) {
  expect(evidence).toMatch(
    /^\[evidence\] 2 model calls; tools: read_file×1 \(1 failed\), write_file×1; wrote: notes\/a\.md; [1-9]\d* tokens; flags: tool_failures$/,
  );
}

describe('evidence on every child-result path', () => {
  it('subagent_await returns the background child with its evidence, unverified without criteria', () => {
    const output = objectOf<{
      verification?: { verdict: string; evidence: string };
    }>(resultOf('subagent_await').output);
    expect(output.verification?.verdict).toBe('unverified');
    expectHelperEvidence(output.verification?.evidence);
  });

  it('subagent_status of the finished child carries the same evidence', () => {
    const output = objectOf<{
      status: string;
      verification?: { verdict: string; evidence: string };
    }>(resultOf('subagent_status').output);
    expect(output.status).toBe('completed');
    expect(output.verification?.verdict).toBe('unverified');
    expectHelperEvidence(output.verification?.evidence);
  });

  it('GET /api/agent/runs/{id}/evidence answers the whole object for the ungraded child', async () => {
    const started = objectOf<{ run_id: string }>(resultOf('subagent_start').output);
    const response = await server.api(`/api/agent/runs/${started.run_id}/evidence`);
    const body = (await response.json()) as { evidence: Record<string, unknown>; verification: unknown };
    expect(response.status).toBe(200);
    expect(body.verification).toBeNull();
    expect(body.evidence).toMatchObject({
      run_id: started.run_id,
      status: 'completed',
      model_calls: 2,
      tool_calls: { write_file: { calls: 1, failed: 0 }, read_file: { calls: 1, failed: 1 } },
      tool_calls_total: 2,
      tool_calls_failed: 1,
      files_written: ['notes/a.md'],
      artifacts: [],
      children: [],
      flags: ['tool_failures'],
    });
  });

  it("delegate's result carries the expert's evidence: one model call, no tool calls", () => {
    const result = resultOf('delegate');
    expect(result.is_error).toBe(false);
    expect(String(result.output)).toContain('[evidence] 1 model calls; no tool calls');
  });
});
