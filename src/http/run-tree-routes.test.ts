import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, newRunId } from '../core/ids.js';
import type { NewRun } from '../core/ports/storage.js';
import type { Conversation } from '../core/records/conversation.js';
import type { Run } from '../core/records/run.js';
import type { RunTreeNode } from '../runtime/runs/inspect/run-tree.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';
import { walkRunTo } from '../../test/helpers/walk-run-to.js';

let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;
let runs: { root: Run; a: Run; b: Run; grandchild: Run; other: Run };

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function runInput(conversation: Conversation, overrides: Partial<NewRun> = {}): NewRun {
  const id = overrides.id ?? newRunId();
  return {
    id,
    thread_id: conversation.thread_id,
    conversation_id: conversation.id,
    agent_id: conversation.agent_id,
    user_id: conversation.user_id,
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
  const conversation = await ctx.conversations.create(alice.user, { agent_id: 'main' });
  const { storage } = ctx;
  const root = await storage.runs.insert(runInput(conversation));
  const child = async (createdBy: Run, depth: number, runType: Run['run_type']): Promise<Run> => {
    await delay(3);
    return storage.runs.insert(
      runInput(conversation, {
        thread_id: newId('thr'),
        run_type: runType,
        created_by_run_id: createdBy.id,
        root_run_id: root.id,
        depth,
      }),
    );
  };
  const a = await child(root, 1, 'delegation');
  const b = await child(root, 1, 'subagent');
  const grandchild = await child(a, 2, 'subagent');
  // Finished with usage, as the worker leaves it.
  const finished = await walkRunTo(storage, b.id, 'completed', {
    started_at: '2030-01-01T00:00:00.000Z',
    finished_at: '2030-01-01T00:00:02.500Z',
    usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, model_calls: 1, aborted_model_calls: 0 },
  });
  const other = await storage.runs.insert(runInput(conversation, { thread_id: newId('thr') }));
  runs = { root, a, b: finished ?? b, grandchild, other };
});

afterAll(async () => {
  await ctx.close();
});

function shape(node: RunTreeNode): unknown {
  return { id: node.run.id, children: node.children.map(shape) };
}

async function tree(token: string, runId: string): Promise<RunTreeNode> {
  const body = await json<{ tree: RunTreeNode }>(
    await ctx.request('GET', `/api/agent/runs/${runId}/tree`, { token }),
    200,
  );
  return body.tree;
}

describe('GET /api/agent/runs/{id}/tree', () => {
  it('nests the whole root tree by created_by_run_id, children oldest first', async () => {
    const { root, a, b, grandchild } = runs;
    expect(shape(await tree(alice.token, root.id))).toEqual({
      id: root.id,
      children: [
        { id: a.id, children: [{ id: grandchild.id, children: [] }] },
        { id: b.id, children: [] },
      ],
    });
  });

  it('answers the same tree from any node, with full run records (status, timestamps, usage)', async () => {
    const fromRoot = await tree(alice.token, runs.root.id);
    const fromLeaf = await tree(alice.token, runs.grandchild.id);
    expect(fromLeaf).toEqual(fromRoot);
    const bNode = fromRoot.children[1];
    expect(bNode?.run).toMatchObject({
      status: 'completed',
      run_type: 'subagent',
      started_at: '2030-01-01T00:00:00.000Z',
      finished_at: '2030-01-01T00:00:02.500Z',
      usage: { total_tokens: 15 },
    });
  });

  it('does not mix another root run of the same conversation into the tree', async () => {
    expect(shape(await tree(alice.token, runs.other.id))).toEqual({ id: runs.other.id, children: [] });
  });

  it('hides a foreign run as run_not_found, shows it to an admin', async () => {
    await expectError(
      await ctx.request('GET', `/api/agent/runs/${runs.grandchild.id}/tree`, { token: bob.token }),
      404,
      'run_not_found',
    );
    expect((await tree(admin.token, runs.grandchild.id)).run.id).toBe(runs.root.id);
  });

  it('answers run_not_found for an unknown run and 401 without a token', async () => {
    await expectError(
      await ctx.request('GET', '/api/agent/runs/nope/tree', { token: alice.token }),
      404,
      'run_not_found',
    );
    await expectError(await ctx.request('GET', `/api/agent/runs/${runs.root.id}/tree`), 401, 'unauthorized');
  });

  it('is listed in the OpenAPI document', async () => {
    const document = await json<{ paths: Record<string, unknown> }>(
      await ctx.request('GET', '/api/openapi.json'),
      200,
    );
    expect(Object.keys(document.paths)).toContain('/api/agent/runs/{id}/tree');
  });
});
