import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, newRunId } from '../core/ids.js';
import type { NewRun } from '../core/ports/storage.js';
import type { Conversation } from '../core/records/conversation.js';
import type { Run } from '../core/records/run.js';
import type { RunEventType } from '../core/records/run-event.js';
import type { RunListItem } from '../runtime/runs/inspect/list-runs.js';
import type { RunTrace } from '../runtime/runs/inspect/build-run-trace.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';
import { walkRunTo } from '../../test/helpers/walk-run-to.js';

let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;
let conversation: Conversation;
let second: Conversation;
let runs: { root: Run; child: Run; delegation: Run; later: Run };

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function runInput(where: Conversation, overrides: Partial<NewRun> = {}): NewRun {
  const id = overrides.id ?? newRunId();
  return {
    id,
    thread_id: newId('thr'),
    conversation_id: where.id,
    agent_id: where.agent_id,
    user_id: where.user_id,
    run_type: 'chat',
    source: 'test',
    channel: 'api',
    request_id: `req:${id}`,
    created_by_run_id: null,
    root_run_id: id,
    depth: 0,
    subagent_thread_relation_id: null,
    runtime_scope_id: `scope:${id}`,
    tool_approval_mode: 'default',
    model_spec: 'scripted:test',
    input: { message: 'hello' },
    ...overrides,
  };
}

beforeAll(async () => {
  ctx = await createTestContext();
  alice = await ctx.createUser('alice');
  bob = await ctx.createUser('bob');
  admin = await ctx.createUser('root', 'admin');
  await ctx.agents.create(alice.user, { name: 'Main', slug: 'main', config: { model: 'scripted:test' } });
  conversation = await ctx.conversations.create(alice.user, { agent_id: 'main' });
  second = await ctx.conversations.create(alice.user, { agent_id: 'main' });
  const { storage } = ctx;
  const insert = async (input: NewRun) => {
    const run = await storage.runs.insert(input);
    await pause(3);
    return run;
  };
  const root = await insert(runInput(conversation, { input: { message: 'Plan the launch\n\nin detail' } }));
  const child = await insert(
    runInput(conversation, {
      run_type: 'subagent',
      created_by_run_id: root.id,
      root_run_id: root.id,
      depth: 1,
      input: { message: 'Research the launch date', inline_subagent: 'scout' },
    }),
  );
  const delegation = await insert(
    runInput(conversation, {
      run_type: 'delegation',
      created_by_run_id: root.id,
      root_run_id: root.id,
      depth: 1,
      input: { message: 'Ask the analyst' },
    }),
  );
  const later = await insert(runInput(second, { input: { message: 'Another question' } }));
  const event = (run: Run, type: RunEventType, payload: Record<string, unknown>) =>
    storage.events.append({ run_id: run.id, type, payload });
  await event(root, 'metadata', { model: 'scripted:test' });
  await event(root, 'tool_call', { step: 1, tool_call_id: 'c1', name: 'task', args: {} });
  await event(child, 'metadata', { model: 'scripted:test' });
  await event(child, 'step', { step: 1, tool_calls: 0, usage: { input_tokens: 7, output_tokens: 3 } });
  await event(child, 'end', { status: 'completed' });
  await event(root, 'tool_result', {
    step: 1,
    tool_call_id: 'c1',
    name: 'task',
    output: 'ok',
    is_error: false,
  });
  await walkRunTo(storage, child.id, 'completed', {
    started_at: '2030-01-01T00:00:00.000Z',
    finished_at: '2030-01-01T00:00:01.250Z',
    usage: { input_tokens: 7, output_tokens: 3, total_tokens: 10, model_calls: 1, aborted_model_calls: 0 },
  });
  await walkRunTo(storage, delegation.id, 'failed', {
    usage: { input_tokens: 4, output_tokens: 1, total_tokens: 5, model_calls: 1, aborted_model_calls: 0 },
  });
  await walkRunTo(storage, root.id, 'running', { started_at: new Date().toISOString() });
  runs = {
    root: (await storage.runs.get(root.id)) as Run,
    child: (await storage.runs.get(child.id)) as Run,
    delegation: (await storage.runs.get(delegation.id)) as Run,
    later,
  };
});

afterAll(async () => {
  await ctx.close();
});

interface Page {
  runs: RunListItem[];
  next_cursor: string | null;
}

async function list(token: string, query = ''): Promise<Page> {
  return json<Page>(await ctx.request('GET', `/api/agent/runs${query}`, { token }), 200);
}

const idsOf = (page: Page) => page.runs.map((run) => run.id);

describe('GET /api/agent/runs', () => {
  it("lists the caller's runs newest first with agent, timings, usage, children and a one-line preview", async () => {
    const page = await list(alice.token);
    expect(idsOf(page)).toEqual([runs.later.id, runs.delegation.id, runs.child.id, runs.root.id]);
    expect(page.next_cursor).toBeNull();
    const byId = new Map(page.runs.map((run) => [run.id, run]));
    expect(byId.get(runs.root.id)).toMatchObject({
      status: 'running',
      run_type: 'chat',
      agent: { slug: 'main', name: 'Main' },
      child_count: 2,
      input_preview: 'Plan the launch in detail',
      duration_ms: null,
      conversation_id: conversation.id,
    });
    expect(byId.get(runs.child.id)).toMatchObject({
      subagent_name: 'scout',
      duration_ms: 1250,
      usage: { total_tokens: 10 },
      created_by_run_id: runs.root.id,
    });
  });

  it('pages with an opaque cursor, and refuses a cursor it did not make', async () => {
    const first = await list(alice.token, '?limit=3');
    expect(first.runs).toHaveLength(3);
    expect(first.next_cursor).toEqual(expect.any(String));
    const rest = await list(alice.token, `?limit=3&cursor=${encodeURIComponent(first.next_cursor ?? '')}`);
    expect([...idsOf(first), ...idsOf(rest)]).toEqual(idsOf(await list(alice.token)));
    expect(rest.next_cursor).toBeNull();
    await expectError(
      await ctx.request('GET', '/api/agent/runs?cursor=not-a-cursor', { token: alice.token }),
      400,
      'validation_failed',
    );
  });

  it('filters by status, kind, agent, conversation, time range and text', async () => {
    expect(idsOf(await list(alice.token, '?status=failed,running'))).toEqual([
      runs.delegation.id,
      runs.root.id,
    ]);
    expect(idsOf(await list(alice.token, '?kind=subagent,delegation'))).toEqual([
      runs.delegation.id,
      runs.child.id,
    ]);
    expect(idsOf(await list(alice.token, `?conversation_id=${second.id}`))).toEqual([runs.later.id]);
    expect(await list(alice.token, '?agent=main')).toMatchObject({ runs: { length: 4 } });
    expect(idsOf(await list(alice.token, '?agent=no-such-agent'))).toEqual([]);
    const from = encodeURIComponent(runs.child.created_at);
    const to = encodeURIComponent(runs.later.created_at);
    expect(idsOf(await list(alice.token, `?from=${from}&to=${to}`))).toEqual([
      runs.delegation.id,
      runs.child.id,
    ]);
    expect(idsOf(await list(alice.token, '?q=LAUNCH'))).toEqual([runs.child.id, runs.root.id]);
  });

  it('refuses malformed filters with validation_failed', async () => {
    for (const query of [
      '?status=done',
      '?kind=',
      '?limit=0',
      '?limit=101',
      '?from=yesterday',
      '?colour=red',
    ]) {
      await expectError(
        await ctx.request('GET', `/api/agent/runs${query}`, { token: alice.token }),
        400,
        'validation_failed',
      );
    }
  });

  it("never shows another member's runs: own list, their conversation (404) and their user id (empty)", async () => {
    expect(idsOf(await list(bob.token))).toEqual([]);
    await expectError(
      await ctx.request('GET', `/api/agent/runs?conversation_id=${conversation.id}`, { token: bob.token }),
      404,
      'conversation_not_found',
    );
    expect(idsOf(await list(bob.token, `?user_id=${alice.user.id}`))).toEqual([]);
  });

  it("gives an admin everyone's runs, or one user's", async () => {
    expect(idsOf(await list(admin.token))).toHaveLength(4);
    expect(idsOf(await list(admin.token, `?user_id=${alice.user.id}&kind=chat`))).toEqual([
      runs.later.id,
      runs.root.id,
    ]);
    expect(idsOf(await list(admin.token, `?user_id=${bob.user.id}`))).toEqual([]);
  });

  it('lives next to the /api/agent/runs/{id} routes and is in the OpenAPI document', async () => {
    // A route under /api/agent/runs/{id} still answers for its run (this context wires no run service).
    const one = await json<{ tree: { run: Run } }>(
      await ctx.request('GET', `/api/agent/runs/${runs.root.id}/tree`, { token: alice.token }),
      200,
    );
    expect(one.tree.run.id).toBe(runs.root.id);
    const document = await json<{
      paths: Record<string, Record<string, { parameters?: { name: string }[] }>>;
    }>(await ctx.request('GET', '/api/openapi.json'), 200);
    const names = document.paths['/api/agent/runs']?.get?.parameters?.map((parameter) => parameter.name);
    expect(names).toEqual([
      'status',
      'kind',
      'agent',
      'conversation_id',
      'user_id',
      'from',
      'to',
      'q',
      'cursor',
      'limit',
    ]);
    expect(Object.keys(document.paths)).toContain('/api/agent/runs/{id}/trace');
  });
});

describe('GET /api/agent/runs/{id}/trace', () => {
  it('answers the whole tree from any node, with spans from stored events and totals per subtree', async () => {
    const { trace } = await json<{ trace: RunTrace }>(
      await ctx.request('GET', `/api/agent/runs/${runs.child.id}/trace`, { token: alice.token }),
      200,
    );
    expect(trace.root_run_id).toBe(runs.root.id);
    expect(trace.run_id).toBe(runs.child.id);
    expect(trace.nodes.map((node) => [node.run.id, node.parent_run_id])).toEqual([
      [runs.root.id, null],
      [runs.child.id, runs.root.id],
      [runs.delegation.id, runs.root.id],
    ]);
    const [root, child] = trace.nodes;
    expect(root?.child_run_ids).toEqual([runs.child.id, runs.delegation.id]);
    expect(root?.timeline.spans.map((span) => [span.kind, span.name, span.status])).toEqual([
      ['model', 'scripted:test', 'done'],
      ['tool', 'task', 'done'],
    ]);
    expect(child?.display_name).toBe('scout');
    expect(child?.timeline.last_seq).toBe(3);
    expect(child?.timeline.spans[0]?.usage).toEqual({ input_tokens: 7, output_tokens: 3 });
    expect(root?.totals).toEqual({
      own: { input_tokens: 0, output_tokens: 0, total_tokens: 0, model_calls: 0, aborted_model_calls: 0 },
      children: {
        input_tokens: 11,
        output_tokens: 4,
        total_tokens: 15,
        model_calls: 2,
        aborted_model_calls: 0,
      },
      subtree: {
        input_tokens: 11,
        output_tokens: 4,
        total_tokens: 15,
        model_calls: 2,
        aborted_model_calls: 0,
      },
    });
  });

  it('is run_not_found for another member and for an unknown run, and open to an admin', async () => {
    await expectError(
      await ctx.request('GET', `/api/agent/runs/${runs.child.id}/trace`, { token: bob.token }),
      404,
      'run_not_found',
    );
    await expectError(
      await ctx.request('GET', '/api/agent/runs/nope/trace', { token: alice.token }),
      404,
      'run_not_found',
    );
    const { trace } = await json<{ trace: RunTrace }>(
      await ctx.request('GET', `/api/agent/runs/${runs.root.id}/trace`, { token: admin.token }),
      200,
    );
    expect(trace.nodes).toHaveLength(3);
  });
});
