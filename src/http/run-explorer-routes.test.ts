import { beforeAll, describe, expect, it } from 'vitest';
import type { Conversation } from '../core/records/conversation.js';
import type { Run } from '../core/records/run.js';
import type { RunListItem } from '../runtime/runs/inspect/list-runs.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';
import {
  useRunExplorerSetup,
  type RunExplorerSetup,
} from '../../test/helpers/http/use-run-explorer-setup.js';

const setup = useRunExplorerSetup();
let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;
let admin: TestUser;
let conversation: Conversation;
let second: Conversation;
let runs: RunExplorerSetup['runs'];

beforeAll(() => {
  ({ ctx, alice, bob, admin, conversation, second, runs } = setup());
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
      'verdict',
      'agent',
      'conversation_id',
      'user_id',
      'from',
      'to',
      'q',
      'forked',
      'cursor',
      'limit',
    ]);
    expect(Object.keys(document.paths)).toContain('/api/agent/runs/{id}/trace');
  });
});
