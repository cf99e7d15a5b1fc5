import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BACKENDS, startBackend, type ScriptedBackend, type ScriptRule } from '../helpers/model-backends.js';
import { readSse, startTestServer, type TestServer } from '../helpers/start-test-server.js';

/*
 * Verified delegation over real HTTP (docs/verified-delegation.md): one script plays every role — the main agent
 * (its message), the subagent ("WORK …"), the grader (its one message starts with "## Task") and a revision
 * ("… asks for a revision") — on the scripted provider and on the fake OpenAI and Anthropic servers.
 */
const GRADER = '^## Task[\\s\\S]*';
const RULES: ScriptRule[] = [
  {
    when: { matches: `${GRADER}## Final output of the agent\\n[^#]*FINAL` },
    steps: [{ text: '{"verdict": "satisfied", "reasons": ["The answer says FINAL."]}' }],
  },
  {
    when: { matches: `${GRADER}grade-fail` },
    steps: [{ text: '{"verdict": "failed", "reasons": ["This task cannot be accepted."]}' }],
  },
  { when: { matches: `${GRADER}grade-garbage` }, steps: [{ text: 'Looks fine to me!' }] },
  {
    when: { matches: `${GRADER}grade-budget` },
    steps: [
      { text: 'Checking the workdir first.', tool_calls: [{ name: 'ls', args: {} }] },
      { text: '{"verdict": "satisfied", "reasons": []}' },
    ],
  },
  {
    when: { matches: GRADER },
    steps: [
      { text: '{"verdict": "needs_revision", "reasons": ["Say FINAL; in capitals.", "Keep it short."]}' },
    ],
  },
  { when: { contains: 'asks for a revision' }, steps: [{ text: 'Revised: the FINAL answer.' }] },
  { when: { matches: '^WORK[\\s\\S]*first-time' }, steps: [{ text: 'The FINAL answer at once.' }] },
  { when: { matches: '^WORK' }, steps: [{ text: 'A draft answer.' }] },
  {
    steps: [
      {
        text: 'Handing this to the checker.',
        tool_calls: [
          {
            name: 'task',
            args: {
              subagent_slug: 'checker',
              description: 'WORK {{input}}',
              acceptance: 'The answer contains the word FINAL.',
            },
          },
        ],
      },
      { text: 'Done.' },
    ],
  },
];

interface Verification {
  verdict: string;
  reasons: string[];
  evidence: { run_id: string; model_calls: number; flags: string[]; tool_calls_total: number };
}
interface VerificationEvent {
  event: string;
  payload: Verification & { run_id: string; revision: number; final: boolean; grader_run_id: string | null };
}

interface World {
  server: TestServer;
  backend: ScriptedBackend;
  bossId: string;
  scenarioDir: string | undefined;
}

let world: World | undefined;
afterEach(async () => {
  if (!world) return;
  await world.server.close();
  await world.backend.close();
  if (world.scenarioDir) rmSync(world.scenarioDir, { recursive: true, force: true });
  world = undefined;
});
afterAll(() => undefined);

async function json<T>(response: Response): Promise<T> {
  expect(response.status, await response.clone().text()).toBeLessThan(300);
  return (await response.json()) as T;
}

async function startWorld(
  backendName: (typeof BACKENDS)[number],
  boss: Record<string, unknown> = {},
  delays: Record<string, number> = {},
): Promise<World> {
  const rules = RULES.map((rule) => {
    const delay = Object.entries(delays).find(([marker]) => rule.when?.matches?.includes(marker));
    return delay ? { ...rule, steps: rule.steps.map((step) => ({ ...step, delay_ms: delay[1] })) } : rule;
  });
  const backend = await startBackend(backendName, rules, 'verify');
  let scenarioDir: string | undefined;
  if (backendName === 'scripted') {
    scenarioDir = mkdtempSync(path.join(os.tmpdir(), 'troupe-verify-'));
    for (const [name, text] of Object.entries(backend.scenarios))
      writeFileSync(path.join(scenarioDir, `${name}.json`), text);
  }
  const server = await startTestServer({
    ...(scenarioDir ? { scenarioDir } : {}),
    ...backend.models,
  });
  await json(
    await server.api('/api/agent', {
      method: 'POST',
      body: JSON.stringify({
        slug: 'checker',
        name: 'Checker',
        description: 'Does the work',
        backend: 'subagent',
        config: { model: backend.spec },
      }),
    }),
  );
  const { agent } = await json<{ agent: { id: string } }>(
    await server.api('/api/agent', {
      method: 'POST',
      body: JSON.stringify({
        slug: 'boss',
        name: 'Boss',
        description: 'Delegates with acceptance criteria',
        backend: 'chat',
        config: {
          model: backend.spec,
          subagents: ['checker'],
          grader: { model: backend.spec, max_revisions: 1 },
          ...boss,
        },
      }),
    }),
  );
  world = { server, backend, bossId: agent.id, scenarioDir };
  return world;
}

async function runToEnd(w: World, message: string) {
  const { runId, conversationId } = await w.server.chat(message, w.bossId);
  const frames = await readSse(await w.server.api(`/api/agent/runs/${runId}/events`));
  const verdicts = frames
    .filter((frame) => frame.event === 'verification')
    .map((frame) => JSON.parse(frame.data) as VerificationEvent);
  const end = JSON.parse(frames.at(-1)?.data ?? '{}') as { payload: { status: string } };
  const results = frames
    .filter((frame) => frame.event === 'tool_result')
    .map(
      (frame) => JSON.parse(frame.data) as { payload: { name: string; output: string; is_error: boolean } },
    );
  return {
    runId,
    conversationId,
    verdicts,
    status: end.payload.status,
    task: results.find((r) => r.payload.name === 'task'),
  };
}

async function runsByVerdict(w: World, verdict: string, token?: string): Promise<string[]> {
  const response = await w.server.api(
    `/api/agent/runs?verdict=${verdict}`,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );
  return (await json<{ runs: { id: string }[] }>(response)).runs.map((run) => run.id);
}

describe.each(BACKENDS)('verified delegation over HTTP (%s)', (backendName) => {
  it('grades a child as satisfied at once: the event, the tool result and the filter say so', async () => {
    const w = await startWorld(backendName);
    const { verdicts, status, task } = await runToEnd(w, 'first-time please');
    expect(status).toBe('completed');
    expect(verdicts.map((v) => [v.payload.verdict, v.payload.revision, v.payload.final])).toEqual([
      ['satisfied', 0, true],
    ]);
    const [verdict] = verdicts;
    expect(verdict?.payload.evidence.model_calls).toBe(1);
    expect(verdict?.payload.evidence.flags).toContain('no_tool_calls');
    expect(task?.payload.output).toContain('[evidence] 1 model calls; no tool calls');
    expect(task?.payload.output).toContain('[verification] satisfied');
    expect(await runsByVerdict(w, 'satisfied')).toEqual([verdict?.payload.run_id]);
    // The grader is a child run of kind grader of the parent, never a chat conversation.
    const graders = await json<{ runs: { id: string; run_type: string }[] }>(
      await w.server.api('/api/agent/runs?kind=grader'),
    );
    expect(graders.runs.map((run) => run.id)).toEqual([verdict?.payload.grader_run_id]);
    const list = await json<{ conversations: { title: string }[] }>(await w.server.api('/api/conversations'));
    expect(list.conversations.some((c) => c.title.startsWith('Grader'))).toBe(false);
  });

  it('asks for a revision, resumes the child with the reasons and accepts the revision', async () => {
    const w = await startWorld(backendName);
    const { verdicts, status, task, conversationId } = await runToEnd(w, 'summarise the plan');
    expect(status).toBe('completed');
    expect(verdicts.map((v) => [v.payload.verdict, v.payload.revision, v.payload.final])).toEqual([
      ['needs_revision', 0, false],
      ['satisfied', 1, true],
    ]);
    expect(verdicts[0]?.payload.reasons).toEqual(['Say FINAL; in capitals.', 'Keep it short.']);
    // The status panel's list carries each judged child's stored verdict (what a reloaded console shows), the
    // reasons as the grader listed them.
    const panel = await json<{ subagents: { run_id: string; verification: unknown }[] }>(
      await w.server.api(`/api/conversations/${conversationId}/subagents`),
    );
    // The grader runs are listed too (kind grader), never judged themselves.
    const judged = panel.subagents.filter((entry) => entry.verification !== null);
    expect(judged.map((entry) => [entry.run_id, entry.verification])).toEqual([
      [
        verdicts[0]?.payload.run_id,
        {
          verdict: 'needs_revision',
          reasons: ['Say FINAL; in capitals.', 'Keep it short.'],
          revisions: 0,
          flags: ['no_tool_calls'],
        },
      ],
      [
        verdicts[1]?.payload.run_id,
        { verdict: 'satisfied', reasons: ['The answer says FINAL.'], revisions: 1, flags: ['no_tool_calls'] },
      ],
    ]);
    expect(task?.payload.output).toContain('Revised: the FINAL answer.');
    expect(await runsByVerdict(w, 'needs_revision')).toEqual([verdicts[0]?.payload.run_id]);
    // The revision ran on the child's own thread.
    const [first, second] = await Promise.all(
      verdicts.map(async (v) =>
        json<{ run: { thread_id: string } }>(await w.server.api(`/api/agent/runs/${v.payload.run_id}`)),
      ),
    );
    expect(second?.run.thread_id).toBe(first?.run.thread_id);
  });

  it('passes on a failed verdict, and a malformed one becomes failed after one retry', async () => {
    const w = await startWorld(backendName);
    const failed = await runToEnd(w, 'grade-fail this');
    expect(failed.verdicts.map((v) => v.payload.verdict)).toEqual(['failed']);
    expect(failed.task?.payload.output).toContain('[verification] failed: This task cannot be accepted.');
    const garbage = await runToEnd(w, 'grade-garbage this');
    expect(garbage.verdicts.map((v) => [v.payload.verdict, v.payload.reasons])).toEqual([
      ['failed', ['The grader did not return a valid verdict (after one retry)']],
    ]);
    expect(garbage.status).toBe('completed');
  });

  it('a grader out of budget gives a failed verdict; the parent still gets the child result', async () => {
    // Parent: 1 call, child 1 of the 3 left, grader 1 of the 2 left: its second call is refused.
    const w = await startWorld(backendName, { budget: { model_calls: 4 } });
    const { verdicts, status, task } = await runToEnd(w, 'grade-budget this');
    expect(status).toBe('completed');
    expect(verdicts.map((v) => v.payload.verdict)).toEqual(['failed']);
    expect(verdicts[0]?.payload.reasons[0]).toMatch(/^The grader run ended as failed: .*budget/i);
    expect(task?.payload.output).toContain('A draft answer.');
  });

  it("another user's verdicts are not listed", async () => {
    const w = await startWorld(backendName);
    await runToEnd(w, 'first-time please');
    const created = await json<{ token: string }>(
      await w.server.api('/api/users', { method: 'POST', body: JSON.stringify({ name: 'mallory' }) }),
    );
    expect(await runsByVerdict(w, 'satisfied', created.token)).toEqual([]);
    expect(await runsByVerdict(w, 'satisfied')).toHaveLength(1);
  });
});

describe('cancel during grading (scripted)', () => {
  it('cancels the grader with its parent: no grader run outlives the cancel', async () => {
    const w = await startWorld('scripted', {}, { '^## Task': 20_000 });
    const { runId } = await w.server.chat('summarise slowly', w.bossId);
    let graderId: string | undefined;
    for (let tries = 0; tries < 200 && !graderId; tries++) {
      const page = await json<{ runs: { id: string; status: string }[] }>(
        await w.server.api('/api/agent/runs?kind=grader&status=running'),
      );
      graderId = page.runs[0]?.id;
      if (!graderId) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(graderId).toBeDefined();
    await json(await w.server.api(`/api/agent/runs/${runId}/cancel`, { method: 'POST' }));
    const frames = await readSse(await w.server.api(`/api/agent/runs/${runId}/events`));
    expect((JSON.parse(frames.at(-1)?.data ?? '{}') as { payload: { status: string } }).payload.status).toBe(
      'cancelled',
    );
    const grader = await json<{ run: { status: string } }>(await w.server.api(`/api/agent/runs/${graderId}`));
    expect(['cancelled', 'cancel_requested']).toContain(grader.run.status);
  });
});
