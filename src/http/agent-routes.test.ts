import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent } from '../core/records/agent.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';

let ctx: TestContext;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;

beforeEach(async () => {
  ctx = await createTestContext();
  admin = await ctx.createUser('root', 'admin');
  alice = await ctx.createUser('alice');
  bob = await ctx.createUser('bob');
});
afterEach(async () => ctx.close());

async function createAgent(user: TestUser, body: Record<string, unknown>): Promise<Agent> {
  const response = await ctx.request('POST', '/api/agent', { token: user.token, body });
  return (await json<{ agent: Agent }>(response, 201)).agent;
}

async function listSlugs(user: TestUser, query = ''): Promise<string[]> {
  const response = await ctx.request('GET', `/api/agent${query}`, { token: user.token });
  return (await json<{ agents: Agent[] }>(response, 200)).agents.map((agent) => agent.slug).sort();
}

describe('POST /api/agent', () => {
  it('creates an agent, derives is_subagent, and grants the owner access', async () => {
    const agent = await createAgent(alice, {
      name: 'Writer',
      slug: 'writer',
      config: { model: 'scripted:demo' },
    });
    expect(agent).toMatchObject({
      slug: 'writer',
      backend: 'chat',
      is_subagent: false,
      owner_id: alice.user.id,
    });
    const sub = await createAgent(alice, { name: 'Helper', slug: 'helper', backend: 'subagent' });
    expect(sub.is_subagent).toBe(true);
    expect(ctx.rawRows('agent_access')).toHaveLength(2);
  });

  it('takes per-agent limits up to the server value, and refuses a higher one with 400 naming the setting', async () => {
    const limits = { max_children_per_run: 2, subagent_max_depth: 0, wait_timeout_ms: 60_000, max_steps: 5 };
    const agent = await createAgent(alice, { name: 'Narrow', slug: 'narrow', config: { limits } });
    expect(agent.config.limits).toEqual(limits);
    const before = ctx.countRows();
    const refused = await ctx.request('POST', '/api/agent', {
      token: alice.token,
      body: { name: 'Wide', slug: 'wide', config: { limits: { max_children_per_run: 6 } } },
    });
    const error = await expectError(refused, 400, 'validation_failed');
    expect(error.error.message).toContain(
      "config.limits.max_children_per_run: must be at most 5, the server's TROUPE_MAX_CHILDREN_PER_RUN",
    );
    await expectError(
      await ctx.request('POST', '/api/agent', {
        token: alice.token,
        body: { name: 'Typo', slug: 'typo', config: { limits: { max_children: 1 } } },
      }),
      400,
      'validation_failed',
    );
    expect(ctx.countRows()).toEqual(before);
    const raised = await ctx.request('PUT', `/api/agent/${agent.id}`, {
      token: alice.token,
      body: { config: { limits: { wait_timeout_ms: 24 * 60 * 60 * 1000 } } },
    });
    expect((await expectError(raised, 400, 'validation_failed')).error.message).toContain(
      'TROUPE_WAIT_TIMEOUT_MS',
    );
    const narrowed = await ctx.request('PUT', `/api/agent/${agent.id}`, {
      token: alice.token,
      body: { config: { limits: { max_children_per_user: 1 } } },
    });
    expect((await json<{ agent: Agent }>(narrowed, 200)).agent.config.limits).toEqual({
      max_children_per_user: 1,
    });
  });

  it('answers 400 agent_backend_mismatch and persists nothing', async () => {
    const before = ctx.countRows();
    const response = await ctx.request('POST', '/api/agent', {
      token: alice.token,
      body: { name: 'X', slug: 'x-agent', backend: 'subagent', is_subagent: false },
    });
    await expectError(response, 400, 'agent_backend_mismatch');
    expect(ctx.countRows()).toEqual(before);
  });

  it('answers 409 agent_slug_taken for a duplicate slug', async () => {
    await createAgent(alice, { name: 'A', slug: 'dup' });
    const before = ctx.countRows();
    await expectError(
      await ctx.request('POST', '/api/agent', { token: bob.token, body: { name: 'B', slug: 'dup' } }),
      409,
      'agent_slug_taken',
    );
    expect(ctx.countRows()).toEqual(before);
  });

  it('refuses is_default for a subagent (400) and for a member (403)', async () => {
    await expectError(
      await ctx.request('POST', '/api/agent', {
        token: admin.token,
        body: { name: 'S', backend: 'subagent', is_default: true },
      }),
      400,
      'subagent_cannot_be_default',
    );
    await expectError(
      await ctx.request('POST', '/api/agent', { token: alice.token, body: { name: 'C', is_default: true } }),
      403,
      'forbidden',
    );
  });

  it('validates tool_approval_mode', async () => {
    const response = await ctx.request('POST', '/api/agent', {
      token: alice.token,
      body: { name: 'T', config: { tool_approval_mode: 'whatever' } },
    });
    const body = await expectError(response, 400, 'validation_failed');
    expect(body.error.message).toContain('body.config.tool_approval_mode');
  });
});

describe('GET /api/agent', () => {
  it('hides subagents unless include_subagents=true, and shows only usable agents', async () => {
    await createAgent(alice, { name: 'Main', slug: 'main' });
    await createAgent(alice, { name: 'Helper', slug: 'helper', backend: 'subagent' });
    await createAgent(bob, { name: 'Bob private', slug: 'bob-private' });
    await createAgent(bob, { name: 'Bob public', slug: 'bob-public', visibility: 'public' });
    expect(await listSlugs(alice)).toEqual(['bob-public', 'main']);
    expect(await listSlugs(alice, '?include_subagents=false')).toEqual(['bob-public', 'main']);
    expect(await listSlugs(alice, '?include_subagents=true')).toEqual(['bob-public', 'helper', 'main']);
    expect(await listSlugs(admin, '?include_subagents=true')).toEqual([
      'bob-private',
      'bob-public',
      'helper',
      'main',
    ]);
    await expectError(
      await ctx.request('GET', '/api/agent?include_subagents=maybe', { token: alice.token }),
      400,
      'validation_failed',
    );
  });
});

describe('GET|PUT|DELETE /api/agent/{id}', () => {
  it('finds by id or slug, subagents included', async () => {
    const sub = await createAgent(alice, { name: 'Helper', slug: 'helper', backend: 'subagent' });
    for (const key of [sub.id, 'helper']) {
      const response = await ctx.request('GET', `/api/agent/${key}`, { token: alice.token });
      expect((await json<{ agent: Agent }>(response, 200)).agent.id).toBe(sub.id);
    }
  });

  it('treats a foreign private or shared agent as not found, never forbidden', async () => {
    const hidden = await createAgent(bob, { name: 'Hidden', slug: 'hidden' });
    const shared = await createAgent(bob, { name: 'Shared', slug: 'shared', visibility: 'shared' });
    for (const key of [hidden.id, 'hidden', shared.id]) {
      await expectError(
        await ctx.request('GET', `/api/agent/${key}`, { token: alice.token }),
        404,
        'agent_not_found',
      );
      await expectError(
        await ctx.request('PUT', `/api/agent/${key}`, { token: alice.token, body: { name: 'x' } }),
        404,
        'agent_not_found',
      );
      await expectError(
        await ctx.request('DELETE', `/api/agent/${key}`, { token: alice.token }),
        404,
        'agent_not_found',
      );
    }
  });

  it('lets users of a public agent read it but not change it (403)', async () => {
    await createAgent(bob, { name: 'Open', slug: 'open', visibility: 'public' });
    expect((await ctx.request('GET', '/api/agent/open', { token: alice.token })).status).toBe(200);
    await expectError(
      await ctx.request('PUT', '/api/agent/open', { token: alice.token, body: { name: 'Mine' } }),
      403,
      'forbidden',
    );
    await expectError(
      await ctx.request('DELETE', '/api/agent/open', { token: alice.token }),
      403,
      'forbidden',
    );
  });

  it('updates partially, keeps the backend immutable', async () => {
    const agent = await createAgent(alice, { name: 'Main', slug: 'main' });
    const updated = await ctx.request('PUT', '/api/agent/main', {
      token: alice.token,
      body: { description: 'New', config: { tool_approval_mode: 'always_trust' } },
    });
    expect((await json<{ agent: Agent }>(updated, 200)).agent).toMatchObject({
      id: agent.id,
      name: 'Main',
      description: 'New',
      config: { tool_approval_mode: 'always_trust' },
    });
    await expectError(
      await ctx.request('PUT', '/api/agent/main', { token: alice.token, body: { backend: 'subagent' } }),
      400,
      'agent_backend_mismatch',
    );
    await expectError(
      await ctx.request('PUT', '/api/agent/main', { token: alice.token, body: { is_subagent: true } }),
      400,
      'agent_backend_mismatch',
    );
    await expectError(
      await ctx.request('PUT', '/api/agent/main', { token: alice.token, body: { is_default: true } }),
      400,
      'validation_failed',
    );
  });

  it('soft-deletes (204), after which the agent is gone for the API but the row remains', async () => {
    const agent = await createAgent(alice, { name: 'Temp', slug: 'temp' });
    expect((await ctx.request('DELETE', '/api/agent/temp', { token: alice.token })).status).toBe(204);
    await expectError(
      await ctx.request('GET', `/api/agent/${agent.id}`, { token: alice.token }),
      404,
      'agent_not_found',
    );
    expect(ctx.rawRows('agents').find((row) => row.id === agent.id)?.deleted_at).not.toBeNull();
  });
});

describe('default agent', () => {
  it('set_default is admin only, refuses subagents, and the default cannot be deleted', async () => {
    await createAgent(alice, { name: 'Main', slug: 'main', visibility: 'public' });
    await createAgent(alice, { name: 'Helper', slug: 'helper', backend: 'subagent', visibility: 'public' });
    await expectError(
      await ctx.request('GET', '/api/agent/default', { token: alice.token }),
      404,
      'agent_not_found',
    );
    await expectError(
      await ctx.request('POST', '/api/agent/main/set_default', { token: alice.token }),
      403,
      'forbidden',
    );
    await expectError(
      await ctx.request('POST', '/api/agent/helper/set_default', { token: admin.token }),
      400,
      'subagent_cannot_be_default',
    );
    const set = await ctx.request('POST', '/api/agent/main/set_default', { token: admin.token });
    expect((await json<{ agent: Agent }>(set, 200)).agent.is_default).toBe(true);
    const current = await ctx.request('GET', '/api/agent/default', { token: bob.token });
    expect((await json<{ agent: Agent }>(current, 200)).agent.slug).toBe('main');
    await expectError(
      await ctx.request('DELETE', '/api/agent/main', { token: alice.token }),
      403,
      'forbidden',
    );
    expect((await ctx.request('GET', '/api/agent/main', { token: alice.token })).status).toBe(200);
  });
});
