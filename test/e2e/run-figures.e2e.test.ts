import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunListItem } from '../../src/core/records/run-list.js';
import type { RunView, TokenUsage } from '../../src/core/records/run.js';
import type { RunTrace } from '../../src/core/trace/run-trace.js';
import type { InspectedStep } from '../../src/runtime/runs/inspect/inspect-run-step.js';
import { eventually } from '../helpers/eventually.js';
import { json } from '../helpers/http/expect-error.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';
import { syntheticRuns } from '../helpers/synthetic-runs.js';

/*
 * The figures of a run over real HTTP (docs/usage.md): its usage is live while it runs and the same in every
 * read, a run an expired lease holds says its worker is lost, and another user learns nothing of either.
 */
let server: TestServer;
let bobToken = '';

beforeAll(async () => {
  server = await startTestServer();
  const bob = await server.troupe.auth.createUserWithToken('bob', 'member', 'e2e');
  bobToken = bob.token;
}, 60_000);

afterAll(async () => {
  await server.close();
});

const ok = <T>(response: Response): Promise<T> => json<T>(response, 200);

const asBob = (pathname: string) =>
  fetch(`${server.url}${pathname}`, { headers: { authorization: `Bearer ${bobToken}` } });

async function getRun(runId: string): Promise<RunView> {
  return (await ok<{ run: RunView }>(await server.api(`/api/agent/runs/${runId}`))).run;
}

describe('run figures over HTTP', () => {
  it("shows each model call's prompt, completion, usage and tool calls, to its run's user only", async () => {
    const { conversationId, runId } = await server.chat('Please research how leases expire.');
    const done = (
      await ok<{ run: RunView }>(await server.api(`/api/agent/runs/${runId}/await?timeout_ms=30000`))
    ).run;
    expect(done.status).toBe('completed');
    const first = (await ok<{ step: InspectedStep }>(await server.api(`/api/agent/runs/${runId}/steps/1`)))
      .step;
    // The prompt is the thread before the call: here the user's message; the answer asked for `task`.
    expect(first.prompt.messages.map((entry) => entry.message.role)).toEqual(['user']);
    expect(first.prompt.messages[0]?.message.content).toBe('Please research how leases expire.');
    expect(first.prompt.system_prompt).toEqual(expect.any(String));
    expect(first.prompt.tools).toContain('write_file');
    expect(first.prompt.agent_changed_since).toBe(false);
    expect(first.completion?.message.role).toBe('assistant');
    expect(first.partial).toBe(false);
    expect(first.tool_calls).toHaveLength(1);
    const [task] = first.tool_calls;
    expect(task?.name).toBe('task');
    expect(JSON.stringify(first.completion?.message.content)).toContain(task?.tool_call_id ?? 'none');
    expect(task?.args).toMatchObject({ subagent_slug: 'researcher' });
    expect(task?.result?.is_error).toBe(false);
    expect(String(task?.result?.output)).toContain('Research notes on');
    const second = (await ok<{ step: InspectedStep }>(await server.api(`/api/agent/runs/${runId}/steps/2`)))
      .step;
    expect(second.prompt.messages.map((entry) => entry.message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(second.tool_calls).toEqual([]);
    // The calls' usage adds up to the run's.
    expect((first.usage?.input_tokens ?? 0) + (second.usage?.input_tokens ?? 0)).toBe(
      done.usage?.input_tokens,
    );
    expect((first.usage?.output_tokens ?? 0) + (second.usage?.output_tokens ?? 0)).toBe(
      done.usage?.output_tokens,
    );
    // A completed run made no third call; another user learns nothing of the calls.
    const third = await server.api(`/api/agent/runs/${runId}/steps/3`);
    expect(third.status).toBe(404);
    expect(((await third.json()) as { error: { code: string } }).error.code).toBe('step_not_found');
    const foreign = await asBob(`/api/agent/runs/${runId}/steps/1`);
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('run_not_found');
    expect((await asBob(`/api/conversations/${conversationId}/messages`)).status).toBe(404);
  }, 60_000);

  it('shows live usage while a run waits for its child, the same figure in every read', async () => {
    const { conversationId, runId } = await server.chat('Please research how leases expire.');
    // The assistant's `task` call settled; the researcher takes a few seconds.
    const live = await eventually('the first call to be settled while the run runs', 20_000, async () => {
      const run = await getRun(runId);
      return run.status === 'running' && run.usage?.model_calls === 1 ? run : undefined;
    });
    expect(live.usage?.total_tokens).toBeGreaterThan(0);
    expect(live.worker_lost).toBeNull();
    const [{ runs }, { runs: explorer }, { tree }, { trace }] = await Promise.all([
      ok<{ runs: RunView[] }>(await server.api(`/api/conversations/${conversationId}/runs`)),
      ok<{ runs: RunListItem[] }>(await server.api(`/api/agent/runs?conversation_id=${conversationId}`)),
      ok<{ tree: { run: RunView; totals: { own: TokenUsage } } }>(
        await server.api(`/api/agent/runs/${runId}/tree`),
      ),
      ok<{ trace: RunTrace }>(await server.api(`/api/agent/runs/${runId}/trace`)),
    ]);
    const calls = (usage: TokenUsage | null | undefined) => usage?.model_calls;
    expect(calls(runs.find((run) => run.id === runId)?.usage)).toBe(1);
    expect(calls(explorer.find((run) => run.id === runId)?.usage)).toBe(1);
    expect(calls(tree.run.usage)).toBe(1);
    expect(tree.totals.own).toMatchObject({ model_calls: 1, total_tokens: live.usage?.total_tokens });
    const root = trace.nodes.find((node) => node.run.id === runId);
    expect(root?.totals.own).toMatchObject({ model_calls: 1, total_tokens: live.usage?.total_tokens });
    const child = trace.nodes.find((node) => node.run.id !== runId);
    const { subagents } = await ok<{ subagents: { run_id: string; usage: TokenUsage | null }[] }>(
      await server.api(`/api/conversations/${conversationId}/subagents`),
    );
    expect(subagents.map((entry) => entry.run_id)).toEqual([child?.run.id]);

    // Another user: nothing of the run, its tree, its trace or its conversation's runs.
    for (const pathname of [
      `/api/agent/runs/${runId}`,
      `/api/agent/runs/${runId}/tree`,
      `/api/agent/runs/${runId}/trace`,
      `/api/agent/runs/${runId}/result`,
    ])
      expect((await asBob(pathname)).status).toBe(404);
    expect((await asBob(`/api/conversations/${conversationId}/runs`)).status).toBe(404);
    const bobs = await ok<{ runs: RunListItem[] }>(await asBob('/api/agent/runs'));
    expect(bobs.runs).toEqual([]);

    const done = (
      await ok<{ run: RunView }>(await server.api(`/api/agent/runs/${runId}/await?timeout_ms=30000`))
    ).run;
    expect(done).toMatchObject({ status: 'completed', worker_lost: null });
    expect(done.usage).toMatchObject({ model_calls: 2, aborted_model_calls: 0 });
    expect(done.usage?.total_tokens).toBeGreaterThan(live.usage?.total_tokens ?? 0);
  }, 60_000);

  it('says a worker is lost once its lease expired, and when a takeover is due; the takeover counts its open call', async () => {
    const { storage } = server.troupe;
    const synthetic = syntheticRuns(server);
    const { conversationId } = await server.chat('hello there');
    await eventually('the first chat to end', 20_000, async () => {
      const { runs } = await ok<{ runs: RunView[] }>(
        await server.api(`/api/conversations/${conversationId}/runs`),
      );
      return runs.every((run) => run.status === 'completed') ? true : undefined;
    });
    const run = await synthetic.parent(conversationId, 'hello again');
    // Its worker settled a call that listed the workdir, got the result, started its next call and stopped
    // renewing its lease a second ago.
    const call = { type: 'tool-call' as const, toolCallId: 'c1', toolName: 'ls', input: {} };
    const result = {
      type: 'tool-result' as const,
      toolCallId: 'c1',
      toolName: 'ls',
      output: { type: 'text' as const, value: '' },
    };
    await storage.messages.appendSteps(run.thread_id, run.id, [
      {
        step: 1,
        messages: [{ role: 'assistant', content: [call] }],
        usage: { input_tokens: 40, output_tokens: 2 },
      },
      { step: 1, messages: [{ role: 'tool', content: [result] }] },
    ]);
    const lineage = { root_run_id: run.id, parent_run_id: null, parent_tool_call_id: null, depth: 0 };
    for (const [type, payload] of [
      ['metadata', { model: 'scripted:demo', usage: null }],
      [
        'tool_call',
        {
          step: 1,
          tool_call_id: 'c1',
          name: 'ls',
          args: {},
          model_usage: { input_tokens: 40, output_tokens: 2 },
        },
      ],
      ['tool_result', { step: 1, tool_call_id: 'c1', name: 'ls', output: '', is_error: false }],
      ['step', { step: 1, tool_calls: 1, usage: { input_tokens: 40, output_tokens: 2 } }],
    ] as const)
      await storage.events.append({ run_id: run.id, type, payload: { ...lineage, ...payload } });
    const expiry = new Date(Date.now() - 1000).toISOString();
    await storage.runs.update(
      run.id,
      { status: ['running'] },
      { worker_id: 'wrk_gone', lease_expires_at: expiry },
    );

    const lost = await getRun(run.id);
    expect(lost.status).toBe('running');
    expect(lost.worker_lost).toEqual({
      since: expiry,
      // The reconciler passes every half lease (TROUPE_LEASE_MS, 30 s by default).
      takeover_by: new Date(Date.parse(expiry) + 15_000).toISOString(),
      then: 'resume',
    });
    expect(lost.usage).toMatchObject({ model_calls: 1, total_tokens: 42, aborted_model_calls: 0 });
    const { runs: listed } = await ok<{ runs: RunListItem[] }>(
      await server.api(`/api/agent/runs?conversation_id=${conversationId}`),
    );
    expect(listed.find((item) => item.id === run.id)?.worker_lost?.then).toBe('resume');
    expect((await asBob(`/api/agent/runs/${run.id}`)).status).toBe(404);

    await server.troupe.reconciler.reconcileOnce();
    const resumed = await eventually('the takeover and the new attempt to finish', 20_000, async () => {
      const current = await getRun(run.id);
      return current.status === 'completed' ? current : undefined;
    });
    expect(resumed).toMatchObject({ attempt: lost.attempt + 1, worker_lost: null });
    // The call the lost worker left open is counted as aborted; the answered ones of both attempts add up.
    expect(resumed.usage?.aborted_model_calls).toBe(1);
    expect(resumed.usage?.model_calls).toBeGreaterThanOrEqual(2);
    const settled = (await storage.messages.settledUsageOf([resumed])).get(run.id);
    expect(resumed.usage).toEqual({ ...settled, aborted_model_calls: 1 });
    expect(resumed.usage?.total_tokens).toBeGreaterThan(42);
  }, 60_000);
});
