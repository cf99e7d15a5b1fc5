import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { locateSandboxTools } from '../../src/runtime/tools/execute/locate-sandbox-tools.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';

const installed = 'tools' in locateSandboxTools(undefined);

interface Report {
  report: { code: string; value: string; message: string }[];
  parent_tools: string[];
}

async function json<T>(response: Response, status = 200): Promise<T> {
  expect(response.status).toBe(status);
  return (await response.json()) as T;
}

/** Waits (on storage, not time) until the run parks for a human. */
async function parked(server: TestServer, runId: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    const { run } = await json<{ run: { status: string } }>(await server.api(`/api/agent/runs/${runId}`));
    if (run.status === 'input_required') return;
    if (['completed', 'failed', 'cancelled', 'interrupted'].includes(run.status))
      throw new Error(`run ended as ${run.status}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the run never asked for approval');
}

describe.skipIf(!installed)(
  `the demo builder over HTTP${installed ? '' : ' (skipped: bubblewrap is not installed)'}`,
  () => {
    let server: TestServer;
    beforeAll(async () => {
      server = await startTestServer();
    });
    afterAll(async () => {
      await server.close();
    });

    it('asks before running "build" in the sandbox, then runs it in the project workdir', async () => {
      const { conversationId, runId } = await server.chat('please build the project', 'builder');
      await parked(server, runId);
      const { approvals } = await json<{
        approvals: { tool_call_id: string; tool_name: string; status: string }[];
      }>(await server.api(`/api/agent/runs/${runId}/approvals`));
      expect(approvals).toMatchObject([{ tool_name: 'execute', status: 'pending' }]);
      await json(
        await server.api(`/api/agent/runs/${runId}/approvals/${approvals[0]?.tool_call_id ?? ''}`, {
          method: 'POST',
          body: JSON.stringify({ decision: 'approve' }),
        }),
      );
      const { run } = await json<{ run: { status: string; output: string } }>(
        await server.api(`/api/agent/runs/${runId}/await?timeout_ms=30000`),
      );
      expect(run.status).toBe('completed');
      expect(run.output).toContain('exit code: 0');
      expect(run.output).toMatch(/built a manifest of \d+ files as sandbox on Linux/);

      const conversation = await server.troupe.storage.conversations.get(conversationId);
      const project = await server.troupe.storage.projects.get(conversation?.project_id ?? '');
      expect(readFileSync(path.join(project?.workdir ?? '', 'build/build.txt'), 'utf8')).toContain(
        'built a manifest',
      );
    });

    it("offers execute in the builder's build report without warnings", async () => {
      const report = await json<Report>(await server.api('/api/agent/builder/build-report'));
      expect(report.parent_tools).toContain('execute');
      expect(report.report).toEqual([]);
    });
  },
);

describe('a server without a working sandbox', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      execute: { ...loadConfig({}).execute, bwrapPath: '/nonexistent/bwrap' },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('does not offer execute and says why in the build report', async () => {
    const report = await json<Report>(await server.api('/api/agent/builder/build-report'));
    expect(report.parent_tools).not.toContain('execute');
    expect(report.report).toEqual([
      {
        code: 'tool_unavailable',
        spec_index: null,
        value: 'execute',
        message:
          'execute is unavailable: bubblewrap not found at /nonexistent/bwrap (TROUPE_BWRAP_PATH; install the Debian package bubblewrap)',
      },
    ]);
  });

  it('fails a run that calls execute instead of running it unsandboxed', async () => {
    const { runId } = await server.chat('build it', 'builder');
    const { run } = await json<{ run: { status: string; error: { type: string; message: string } } }>(
      await server.api(`/api/agent/runs/${runId}/await?timeout_ms=30000`),
    );
    // The scripted model may only call tools it was offered; execute was not.
    expect(run.status).toBe('failed');
    expect(run.error.type).toBe('scenario_invalid');
    expect(run.error.message).toContain('execute');
  });
});
