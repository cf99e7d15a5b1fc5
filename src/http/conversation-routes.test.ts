import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Conversation } from '../core/records/conversation.js';
import type { ProjectView } from '../runtime/projects/project-view.js';
import type { TestContext, TestUser } from '../../test/helpers/http/create-test-context.js';
import { createTestContext } from '../../test/helpers/http/create-test-context.js';
import { expectError, json } from '../../test/helpers/http/expect-error.js';

let ctx: TestContext;
let alice: TestUser;
let bob: TestUser;

beforeEach(async () => {
  ctx = await createTestContext();
  alice = await ctx.createUser('alice');
  bob = await ctx.createUser('bob');
  await ctx.agents.create(alice.user, { name: 'Main', slug: 'main' });
  await ctx.agents.create(alice.user, { name: 'Helper', slug: 'helper', backend: 'subagent' });
});
afterEach(async () => ctx.close());

async function startConversation(user: TestUser, body: Record<string, unknown>): Promise<Conversation> {
  const response = await ctx.request('POST', '/api/conversations', { token: user.token, body });
  return (await json<{ conversation: Conversation }>(response, 201)).conversation;
}

describe('projects', () => {
  it('creates named projects with their directory and lists only mine', async () => {
    const response = await ctx.request('POST', '/api/projects', {
      token: alice.token,
      body: { name: 'Research' },
    });
    const { project } = await json<{ project: ProjectView }>(response, 201);
    // Where it is in the data dir, never the host path.
    expect(project.workdir).toBe(
      `workdirs/${path.basename((await ctx.projects.get(alice.user, project.id)).workdir)}`,
    );
    const mine = await json<{ projects: ProjectView[] }>(
      await ctx.request('GET', '/api/projects', { token: alice.token }),
      200,
    );
    expect(mine.projects).toEqual([project]);
    expect(JSON.stringify(mine)).not.toContain(ctx.dir);
    const theirs = await json<{ projects: ProjectView[] }>(
      await ctx.request('GET', '/api/projects', { token: bob.token }),
      200,
    );
    expect(theirs.projects).toEqual([]);
  });
});

describe('conversations', () => {
  it('starts a conversation by agent slug in the Default project', async () => {
    const conversation = await startConversation(alice, { agent_id: 'main', title: 'Plan' });
    expect(conversation).toMatchObject({ status: 'active', title: 'Plan', user_id: alice.user.id });
    const projects = await ctx.projects.list(alice.user);
    expect(projects.map((project) => [project.id, project.name])).toEqual([
      [conversation.project_id, 'Default'],
    ]);
  });

  it('cannot chat with a subagent', async () => {
    const before = ctx.countRows();
    await expectError(
      await ctx.request('POST', '/api/conversations', { token: alice.token, body: { agent_id: 'helper' } }),
      400,
      'agent_not_chattable',
    );
    expect(ctx.countRows()).toEqual(before);
  });

  it("cannot use another user's project or private agent", async () => {
    const bobsProject = await ctx.projects.createProject(bob.user, 'Bob');
    const before = ctx.countRows();
    await expectError(
      await ctx.request('POST', '/api/conversations', {
        token: alice.token,
        body: { agent_id: 'main', project_id: bobsProject.id },
      }),
      404,
      'project_not_found',
    );
    await expectError(
      await ctx.request('POST', '/api/conversations', { token: bob.token, body: { agent_id: 'main' } }),
      404,
      'agent_not_found',
    );
    expect(ctx.countRows()).toEqual(before);
  });

  it('gets, renames, archives and lists by status', async () => {
    const conversation = await startConversation(alice, { agent_id: 'main' });
    const got = await ctx.request('GET', `/api/conversations/${conversation.id}`, { token: alice.token });
    expect((await json<{ conversation: Conversation }>(got, 200)).conversation.id).toBe(conversation.id);
    const patched = await ctx.request('PATCH', `/api/conversations/${conversation.id}`, {
      token: alice.token,
      body: { title: 'Renamed', status: 'archived' },
    });
    expect((await json<{ conversation: Conversation }>(patched, 200)).conversation).toMatchObject({
      title: 'Renamed',
      status: 'archived',
    });
    const active = await json<{ conversations: Conversation[] }>(
      await ctx.request('GET', '/api/conversations', { token: alice.token }),
      200,
    );
    expect(active.conversations).toEqual([]);
    const archived = await json<{ conversations: Conversation[] }>(
      await ctx.request('GET', '/api/conversations?status=archived', { token: alice.token }),
      200,
    );
    expect(archived.conversations.map((item) => item.id)).toEqual([conversation.id]);
    await expectError(
      await ctx.request('GET', '/api/conversations?status=subagent', { token: alice.token }),
      400,
      'validation_failed',
    );
  });

  it('names an untitled conversation after its first message, and keeps a given or later title', async () => {
    const untitled = await startConversation(alice, { agent_id: 'main' });
    expect(untitled.title).toBe('New conversation');
    const long =
      'Please summarise the quarterly report for the board and list every open risk with its owner';
    const posted = await ctx.request('POST', `/api/conversations/${untitled.id}/messages`, {
      token: alice.token,
      body: { content: `  ${long}\n\nThanks!` },
    });
    expect(posted.status).toBe(202);
    const titled = await ctx.request('GET', `/api/conversations/${untitled.id}`, { token: alice.token });
    const { conversation } = await json<{ conversation: Conversation }>(titled, 200);
    expect(conversation.title).toBe('Please summarise the quarterly report for the board and…');

    const named = await startConversation(alice, { agent_id: 'main', title: 'Board prep' });
    await ctx.request('POST', `/api/conversations/${named.id}/messages`, {
      token: alice.token,
      body: { content: 'something else entirely' },
    });
    const kept = await ctx.request('GET', `/api/conversations/${named.id}`, { token: alice.token });
    expect((await json<{ conversation: Conversation }>(kept, 200)).conversation.title).toBe('Board prep');
  });

  it('searches my conversation titles only, archived ones under their status, and restores an archived one', async () => {
    const plan = await startConversation(alice, { agent_id: 'main', title: 'Release  PLAN for Q3' });
    await startConversation(alice, { agent_id: 'main', title: 'Groceries' });
    const old = await startConversation(alice, { agent_id: 'main', title: 'Old plan' });
    await ctx.request('PATCH', `/api/conversations/${old.id}`, {
      token: alice.token,
      body: { status: 'archived' },
    });
    await ctx.agents.create(bob.user, { name: 'Bobs', slug: 'bobs' });
    await startConversation(bob, { agent_id: 'bobs', title: 'Bob plan' });

    const search = async (user: TestUser, query: string) =>
      (
        await json<{ conversations: Conversation[] }>(
          await ctx.request('GET', `/api/conversations?${query}`, { token: user.token }),
          200,
        )
      ).conversations.map((item) => item.title);
    expect(await search(alice, 'q=plan')).toEqual(['Release  PLAN for Q3']);
    expect(await search(alice, 'q=release%20plan')).toEqual(['Release  PLAN for Q3']);
    expect(await search(alice, 'q=plan&status=archived')).toEqual(['Old plan']);
    expect(await search(alice, 'q=nothing')).toEqual([]);
    expect(await search(alice, 'q=')).toHaveLength(2);
    expect(await search(bob, 'q=plan')).toEqual(['Bob plan']);
    await expectError(
      await ctx.request('GET', `/api/conversations?q=${'x'.repeat(201)}`, { token: alice.token }),
      400,
      'validation_failed',
    );

    // Undo of an archive: the same conversation back in the active list.
    const restored = await ctx.request('PATCH', `/api/conversations/${old.id}`, {
      token: alice.token,
      body: { status: 'active' },
    });
    expect((await json<{ conversation: Conversation }>(restored, 200)).conversation.status).toBe('active');
    expect((await search(alice, 'q=plan')).sort()).toEqual(['Old plan', 'Release  PLAN for Q3']);
    expect(await search(alice, 'status=archived')).toEqual([]);
    expect(plan.status).toBe('active');
  });

  it('returns the thread messages', async () => {
    const conversation = await startConversation(alice, { agent_id: 'main' });
    await ctx.storage.messages.append(conversation.thread_id, null, 0, [{ role: 'user', content: 'hello' }]);
    const response = await ctx.request('GET', `/api/conversations/${conversation.id}/messages`, {
      token: alice.token,
    });
    const { messages } = await json<{ messages: { message: { content: string } }[] }>(response, 200);
    expect(messages.map((item) => item.message.content)).toEqual(['hello']);
  });
});
