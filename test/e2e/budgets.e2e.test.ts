import { readSseFrames, type SseFrame } from '../helpers/read-sse-frames.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/run-limits.js';
import type {
  FakeModelResponse,
  FakeModelServer,
  RecordedRequest,
} from '../helpers/models/fake-model-server.js';
import { startFakeOpenAiServer } from '../helpers/models/fake-openai-server.js';
import { startTestServer, type TestServer } from '../helpers/start-test-server.js';
import { busyTurn, roleOf, teamTurn, turnOf } from '../helpers/role-model.js';

/**
 * Budgets and the stop guarantee (docs/budgets.md, issue 16) over real HTTP, with the real OpenAI adapter talking
 * to a fake OpenAI server on loopback. Each agent's system prompt names its role; the fake answers by role.
 */
let server: TestServer;
let model: FakeModelServer;
/** Set by a test: how the fake answers each role. */
let answer: (role: string, request: RecordedRequest, turn: number) => FakeModelResponse = () => ({
  text: 'ok',
});

async function json<T>(response: Response): Promise<T> {
  const body = (await response.json()) as T;
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

async function createAgent(
  slug: string,
  config: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  await json(
    await server.api('/api/agent', {
      method: 'POST',
      body: JSON.stringify({
        slug,
        name: slug,
        description: `The ${slug}`,
        config: { model: 'openai:gpt-test', ...config },
        ...extra,
      }),
    }),
  );
}

interface TreeNode {
  run: { id: string; status: string; run_type: string; error: { type: string; message: string } | null };
  children: TreeNode[];
  budget: {
    limits: Record<string, number>;
    used: Record<string, number>;
    remaining: Record<string, number>;
  } | null;
  totals: { own: { model_calls: number }; subtree: { model_calls: number; total_tokens: number } };
}

const flatten = (node: TreeNode): TreeNode[] => [node, ...node.children.flatMap(flatten)];
const tree = async (runId: string) =>
  (await json<{ tree: TreeNode }>(await server.api(`/api/agent/runs/${runId}/tree`))).tree;
const awaitRun = async (runId: string) =>
  (
    await json<{ run: { status: string; output: string; error?: { type: string; message: string } } }>(
      await server.api(`/api/agent/runs/${runId}/await?timeout_ms=30000`),
    )
  ).run;

async function poll<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  model = await startFakeOpenAiServer({
    responses: (request) => answer(roleOf(request), request, turnOf(request)),
  });
  server = await startTestServer({
    openaiBaseUrl: model.baseURL,
    openaiApiKey: 'sk-test',
    limits: { ...DEFAULT_LIMITS, maxSteps: 1000, maxActiveChildrenPerRun: 40, maxActiveChildrenPerUser: 200 },
  });
  await json(
    await server.api('/api/me/delegation-policy', { method: 'PUT', body: JSON.stringify({ policy: 'all' }) }),
  );
  await createAgent('looper', { system_prompt: 'ROLE:looper', budget: { model_calls: 3 } });
  await createAgent('planner', {
    system_prompt: 'ROLE:planner',
    budget: { model_calls: 20, tokens: 1_000_000 },
  });
  await createAgent('boss', { system_prompt: 'ROLE:boss' });
  await createAgent('worker', { system_prompt: 'ROLE:worker' }, { status: 'published' });
  await createAgent('helper', { system_prompt: 'ROLE:helper' }, { status: 'published' });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await model?.close();
});

const busy = busyTurn;

describe('budgets (docs/budgets.md)', () => {
  it('ends a run that reaches its model-call limit as failed budget_exhausted, and the conversation goes on', async () => {
    answer = () => busy(0);
    const before = model.requests.length;
    const { conversationId, runId } = await server.chat('Loop forever', 'looper');
    const run = await awaitRun(runId);
    expect(run.status).toBe('failed');
    expect(run.error?.type).toBe('budget_exhausted');
    expect(model.requests.length - before).toBe(3);
    const node = await tree(runId);
    expect(node.budget).toMatchObject({
      limits: { model_calls: 3 },
      used: { model_calls: 3 },
      remaining: { model_calls: 0 },
    });

    answer = () => ({ text: 'Fine, done.' });
    const next = await json<{ run: { id: string } }>(
      await server.api(`/api/conversations/${conversationId}/messages`, {
        method: 'POST',
        body: JSON.stringify({ content: 'Just answer', budget: { model_calls: 1 } }),
      }),
    );
    const finished = await awaitRun(next.run.id);
    expect(finished).toMatchObject({ status: 'completed', output: 'Fine, done.' });
  });

  it('refuses a request budget above the agent one, and creates nothing', async () => {
    const { conversationId, runId } = await server.chat('hello', 'looper');
    await awaitRun(runId);
    const refused = await server.api(`/api/conversations/${conversationId}/messages`, {
      method: 'POST',
      body: JSON.stringify({ content: 'More please', budget: { model_calls: 50 } }),
    });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('validation_failed');
    const runs = await json<{ runs: unknown[] }>(
      await server.api(`/api/conversations/${conversationId}/runs`),
    );
    expect(runs.runs).toHaveLength(1);
  });

  it("carves a child's budget from the parent's; the exhausted child is a tool result and the parent goes on", async () => {
    answer = (role, _request, turn) => {
      if (role === 'planner' && turn === 0) {
        return {
          toolCalls: [
            {
              name: 'task',
              args: {
                subagent_slug: 'general-purpose',
                description: 'CHILD one',
                budget: { model_calls: 2 },
              },
            },
          ],
        };
      }
      if (role === 'child') return busy(0);
      return { text: 'Planner carries on.' };
    };
    const { runId } = await server.chat('Plan it', 'planner');
    const run = await awaitRun(runId);
    expect(run).toMatchObject({ status: 'completed', output: 'Planner carries on.' });
    const root = await tree(runId);
    const child = root.children[0];
    expect(child?.run.status).toBe('failed');
    expect(child?.run.error?.type).toBe('budget_exhausted');
    expect(child?.budget).toMatchObject({ limits: { model_calls: 2 }, used: { model_calls: 2 } });
    // The child's two calls stay spent on the parent; nothing else of the reserve is lost.
    expect(root.budget?.used.model_calls).toBe(2);
    expect(root.budget?.remaining.model_calls).toBe(20 - 2 - 2);
    expect(root.totals.subtree.model_calls).toBe(4);
    const asked = JSON.stringify(
      model.requests.filter((request) => roleOf(request) === 'planner').at(-1)?.body.messages ?? [],
    );
    expect(asked).toContain('budget_exhausted');

    answer = (role, _request, turn) =>
      role === 'planner' && turn === 0
        ? {
            toolCalls: [
              {
                name: 'task',
                args: {
                  subagent_slug: 'general-purpose',
                  description: 'CHILD big',
                  budget: { model_calls: 99 },
                },
              },
            ],
          }
        : { text: 'Refused, fine.' };
    const greedy = await server.chat('Plan big', 'planner');
    expect(await awaitRun(greedy.runId)).toMatchObject({ status: 'completed' });
    expect((await tree(greedy.runId)).children).toHaveLength(0);
    // Clients read why as data on the call's result (the ended run's stream replays whole).
    const frames: SseFrame[] = [];
    const stream = await server.api(`/api/agent/runs/${greedy.runId}/events`);
    await readSseFrames(stream.body as ReadableStream<Uint8Array>, (chunk) => frames.push(...chunk));
    const results = frames.filter((frame) => frame.event === 'tool_result');
    expect(results.map((frame) => (JSON.parse(frame.data) as { payload: unknown }).payload)).toEqual([
      expect.objectContaining({
        name: 'task',
        is_error: true,
        refusal: expect.objectContaining({ code: 'budget_exhausted', dimension: 'model_calls' }) as unknown,
      }),
    ]);
  });
});

describe('the stop guarantee (docs/budgets.md)', () => {
  it('after a cancel no model request of a parent, 20 children and delegation grandchildren reaches the model', async () => {
    // Every leaf sits in a model call that answers only after a minute: when the cancel comes, each run of
    // the tree has exactly one request at the model, so any request after it is a call that started later.
    answer = (role, _request, turn) => teamTurn(role, turn, 20);
    const before = model.requests.length;
    const { runId } = await server.chat('Run the whole team', 'boss');
    // The boss, 10 subagents, 10 workers and 10 helpers: one request each.
    await poll(
      () => Promise.resolve(model.requests.length - before),
      (count) => count >= 31,
    );
    const nodes = flatten(await tree(runId));
    expect(nodes.filter((node) => node.run.run_type === 'subagent')).toHaveLength(10);
    expect(nodes.filter((node) => node.run.run_type === 'delegation')).toHaveLength(20);

    const cancelled = await server.api(`/api/agent/runs/${runId}/cancel`, { method: 'POST' });
    expect(cancelled.status).toBe(200);
    const ended = await poll(
      () => tree(runId),
      (root) =>
        flatten(root).every((node) =>
          ['cancelled', 'failed', 'interrupted', 'completed'].includes(node.run.status),
        ),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(model.requests.length - before).toBe(31);
    expect(flatten(ended).map((node) => node.run.status)).toEqual(
      Array.from({ length: 31 }, () => 'cancelled'),
    );
  }, 60_000);
});

describe('the stop gate reads the tree, not only signals', () => {
  it("stops children at their next call once an ancestor's cancel is committed, before any cascade or signal", async () => {
    await createAgent('gatekeeper', { system_prompt: 'ROLE:gatekeeper' });
    answer = (role, _request, turn) => {
      if (role === 'gatekeeper' && turn === 0) {
        return {
          toolCalls: [0, 1, 2].map((index) => ({
            name: 'task',
            args: { subagent_slug: 'general-purpose', description: `CHILD gate ${index}` },
          })),
        };
      }
      return busy(10);
    };
    const { runId } = await server.chat('Keep them busy', 'gatekeeper');
    await poll(
      () => tree(runId),
      (root) =>
        root.children.length === 3 && root.children.every((child) => child.totals.own.model_calls >= 0),
    );
    await poll(
      () =>
        Promise.resolve(
          model.requests.filter((request) => roleOf(request) === 'child' && turnOf(request) >= 2).length,
        ),
      (count) => count >= 3,
    );
    // Only the database learns of it: no cancel signal, no cascade (as when another process commits it).
    const storage = server.troupe.storage;
    expect(
      await storage.runs.update(runId, { status: ['running'] }, { status: 'cancel_requested' }),
    ).toBeDefined();
    const ended = await poll(
      () => tree(runId),
      (root) => root.children.every((child) => child.run.status === 'cancelled'),
    );
    expect(ended.children.map((child) => child.run.error?.type)).toEqual([
      'execution_tree_closed',
      'execution_tree_closed',
      'execution_tree_closed',
    ]);
    const settled = model.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(model.requests.length).toBe(settled);
  });
});

describe('stuck children (docs/budgets.md)', () => {
  it('interrupts a run that emits nothing for its inactivity timeout', async () => {
    await createAgent('sleeper', { system_prompt: 'ROLE:sleeper', limits: { inactivity_timeout_ms: 300 } });
    answer = () => ({ delayMs: 5_000, text: 'too late' });
    const { runId } = await server.chat('Take your time', 'sleeper');
    const run = await awaitRun(runId);
    expect(run.status).toBe('interrupted');
    expect(run.error?.type).toBe('inactivity_timeout');
  });
});
