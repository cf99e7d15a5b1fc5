import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent, AgentAccess } from '../core/records/agent.js';
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
  return (
    await json<{ agent: Agent }>(await ctx.request('POST', '/api/agent', { token: user.token, body }), 201)
  ).agent;
}

const post = (user: TestUser, url: string, body?: unknown) =>
  ctx.request('POST', url, { token: user.token, body });

describe('publish and unpublish', () => {
  it('lets the owner (or an admin) move an expert between draft and published', async () => {
    const expert = await createAgent(alice, { name: 'Analyst', slug: 'analyst' });
    expect(expert.status).toBe('draft');
    const published = await json<{ agent: Agent }>(await post(alice, `/api/agent/${expert.id}/publish`), 200);
    expect(published.agent).toMatchObject({ id: expert.id, status: 'published' });
    const again = await json<{ agent: Agent }>(await post(alice, '/api/agent/analyst/publish'), 200);
    expect(again.agent.status).toBe('published');
    const draft = await json<{ agent: Agent }>(await post(admin, `/api/agent/${expert.id}/unpublish`), 200);
    expect(draft.agent.status).toBe('draft');
  });

  it('is forbidden to a user who can only use the expert, and not found to one who cannot see it', async () => {
    const open = await createAgent(alice, { name: 'Open', slug: 'open', visibility: 'public' });
    const hidden = await createAgent(alice, { name: 'Hidden', slug: 'hidden' });
    await expectError(await post(bob, `/api/agent/${open.id}/publish`), 403, 'forbidden');
    await expectError(await post(bob, `/api/agent/${hidden.id}/publish`), 404, 'agent_not_found');
    await expectError(await post(bob, `/api/agent/${hidden.id}/unpublish`), 404, 'agent_not_found');
  });

  it('refuses to publish a subagent, through the route and through an update', async () => {
    const sub = await createAgent(alice, { name: 'Helper', slug: 'helper', backend: 'subagent' });
    await expectError(await post(alice, `/api/agent/${sub.id}/publish`), 400, 'subagent_cannot_be_published');
    await expectError(
      await ctx.request('PUT', `/api/agent/${sub.id}`, { token: alice.token, body: { status: 'published' } }),
      400,
      'subagent_cannot_be_published',
    );
    await expectError(
      await post(alice, '/api/agent', {
        name: 'Other',
        slug: 'other-sub',
        backend: 'subagent',
        status: 'published',
      }),
      400,
      'subagent_cannot_be_published',
    );
  });

  it('leaves delete as the soft delete: a deleted expert cannot be published again', async () => {
    const expert = await createAgent(alice, { name: 'Gone', slug: 'gone' });
    expect((await ctx.request('DELETE', `/api/agent/${expert.id}`, { token: alice.token })).status).toBe(204);
    await expectError(await post(alice, `/api/agent/${expert.id}/publish`), 404, 'agent_not_found');
  });
});

describe('access grants', () => {
  it('admins grant on any agent; the grant is idempotent and makes the agent usable', async () => {
    const expert = await createAgent(alice, { name: 'Private', slug: 'private-expert' });
    await expectError(
      await ctx.request('GET', `/api/agent/${expert.id}`, { token: bob.token }),
      404,
      'agent_not_found',
    );
    const created = await json<{ grant: AgentAccess }>(
      await post(admin, `/api/agent/${expert.id}/grants`, { user_id: bob.user.id, source: 'purchased' }),
      201,
    );
    expect(created.grant).toMatchObject({ user_id: bob.user.id, agent_id: expert.id, source: 'purchased' });
    const again = await json<{ grant: AgentAccess }>(
      await post(admin, `/api/agent/${expert.id}/grants`, { user_id: bob.user.id, source: 'granted' }),
      200,
    );
    expect(again.grant).toEqual(created.grant);
    await json(await ctx.request('GET', `/api/agent/${expert.id}`, { token: bob.token }), 200);
  });

  it('owners grant on shared agents only; grant holders never', async () => {
    const privateOne = await createAgent(alice, { name: 'Mine', slug: 'mine' });
    const shared = await createAgent(alice, { name: 'Shared', slug: 'shared', visibility: 'shared' });
    await expectError(
      await post(alice, `/api/agent/${privateOne.id}/grants`, { user_id: bob.user.id }),
      403,
      'forbidden',
    );
    const grant = await json<{ grant: AgentAccess }>(
      await post(alice, `/api/agent/${shared.id}/grants`, { user_id: bob.user.id }),
      201,
    );
    expect(grant.grant.source).toBe('granted');
    const carol = await ctx.createUser('carol');
    await expectError(
      await post(bob, `/api/agent/${shared.id}/grants`, { user_id: carol.user.id }),
      403,
      'forbidden',
    );
  });

  it('lists grants for managers only', async () => {
    const shared = await createAgent(alice, { name: 'Shared', slug: 'shared', visibility: 'shared' });
    await post(alice, `/api/agent/${shared.id}/grants`, { user_id: bob.user.id });
    const listed = await json<{ grants: AgentAccess[] }>(
      await ctx.request('GET', `/api/agent/${shared.id}/grants`, { token: alice.token }),
      200,
    );
    expect(listed.grants.map((grant) => [grant.user_id, grant.source])).toEqual([
      [alice.user.id, 'created'],
      [bob.user.id, 'granted'],
    ]);
    await expectError(
      await ctx.request('GET', `/api/agent/${shared.id}/grants`, { token: bob.token }),
      403,
      'forbidden',
    );
  });

  it('revokes granted access, but not the creator grant; unknown users and grants are not found', async () => {
    const shared = await createAgent(alice, { name: 'Shared', slug: 'shared', visibility: 'shared' });
    await expectError(
      await post(alice, `/api/agent/${shared.id}/grants`, { user_id: 'usr_nobody' }),
      404,
      'user_not_found',
    );
    await post(alice, `/api/agent/${shared.id}/grants`, { user_id: bob.user.id });
    const revoke = (userId: string) =>
      ctx.request('DELETE', `/api/agent/${shared.id}/grants/${userId}`, { token: alice.token });
    expect((await revoke(bob.user.id)).status).toBe(204);
    await expectError(await revoke(bob.user.id), 404, 'grant_not_found');
    await expectError(await revoke(alice.user.id), 403, 'forbidden');
    await expectError(
      await ctx.request('GET', `/api/agent/${shared.id}`, { token: bob.token }),
      404,
      'agent_not_found',
    );
  });

  it('validates the body strictly', async () => {
    const shared = await createAgent(alice, { name: 'Shared', slug: 'shared', visibility: 'shared' });
    await expectError(
      await post(alice, `/api/agent/${shared.id}/grants`, { user_id: bob.user.id, source: 'created' }),
      400,
      'validation_failed',
    );
  });
});
