import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { User } from '../../core/records/user.js';
import type { TestStorage } from '../../../test/helpers/http/create-test-storage.js';
import { createTestStorage } from '../../../test/helpers/http/create-test-storage.js';
import type { AgentService } from '../agents/agent-service.js';
import { createAgentService } from '../agents/agent-service.js';
import type { ConversationService } from './conversation-service.js';
import { createConversationService } from './conversation-service.js';
import type { ProjectService } from '../projects/project-service.js';
import { createProjectService } from '../projects/project-service.js';

let testStorage: TestStorage;
let dir: string;
let storage: Storage;
let agents: AgentService;
let projects: ProjectService;
let conversations: ConversationService;
let alice: User;
let bob: User;

beforeEach(async () => {
  testStorage = await createTestStorage();
  ({ dir, storage } = testStorage);
  agents = createAgentService(storage);
  projects = createProjectService(storage, { workdirRoot: path.join(dir, 'workdirs') });
  conversations = createConversationService({ storage, agents, projects });
  alice = await storage.users.create({ name: 'alice', role: 'member' });
  bob = await storage.users.create({ name: 'bob', role: 'member' });
});
afterEach(async () => {
  await testStorage.close();
});

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (thrown: unknown) => (isTroupeError(thrown) ? thrown.code : String(thrown)),
  );
}

describe('conversation service', () => {
  it('creates an active conversation with a fresh thread in the default project', async () => {
    const agent = await agents.create(alice, { name: 'Main', slug: 'main' });
    const conversation = await conversations.create(alice, { agent_id: 'main', title: 'Hello' });
    expect(conversation).toMatchObject({
      user_id: alice.id,
      agent_id: agent.id,
      status: 'active',
      title: 'Hello',
    });
    expect(conversation.thread_id).toMatch(/^thr_[0-9a-f]{20}$/);
    expect(conversation.project_id).toBe((await projects.defaultProject(alice)).id);
  });

  it('refuses subagents, agents the user cannot use, and projects of other users', async () => {
    await agents.create(alice, { name: 'Sub', slug: 'sub', backend: 'subagent' });
    await agents.create(bob, { name: 'Bobs', slug: 'bobs' });
    await agents.create(alice, { name: 'Main', slug: 'main' });
    const bobsProject = await projects.createProject(bob, 'Bob');
    expect(await codeOf(conversations.create(alice, { agent_id: 'sub' }))).toBe('agent_not_chattable');
    expect(await codeOf(conversations.create(alice, { agent_id: 'bobs' }))).toBe('agent_not_found');
    expect(await codeOf(conversations.create(alice, { agent_id: 'main', project_id: bobsProject.id }))).toBe(
      'project_not_found',
    );
    expect(await storage.conversations.listForUser(alice.id, ['active', 'archived'])).toHaveLength(0);
  });

  it('lists newest first, archives and restores, and scopes everything to the owner', async () => {
    await agents.create(alice, { name: 'Main', slug: 'main' });
    const first = await conversations.create(alice, { agent_id: 'main', title: 'one' });
    // Timestamps have millisecond resolution; make "newer" unambiguous.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await conversations.create(alice, { agent_id: 'main', title: 'two' });
    expect((await conversations.list(alice)).map((item) => item.id)).toEqual([second.id, first.id]);
    const archived = await conversations.patch(alice, first.id, { status: 'archived', title: 'old' });
    expect(archived).toMatchObject({ status: 'archived', title: 'old' });
    expect((await conversations.list(alice)).map((item) => item.id)).toEqual([second.id]);
    expect((await conversations.list(alice, 'archived')).map((item) => item.id)).toEqual([first.id]);
    expect((await conversations.patch(alice, first.id, { status: 'active' })).status).toBe('active');
    expect(await codeOf(conversations.get(bob, first.id))).toBe('conversation_not_found');
    expect(await codeOf(conversations.patch(bob, first.id, { title: 'mine' }))).toBe(
      'conversation_not_found',
    );
    expect(await codeOf(conversations.messages(bob, first.id))).toBe('conversation_not_found');
    expect(await conversations.list(bob)).toEqual([]);
  });

  it('returns the thread messages in order', async () => {
    await agents.create(alice, { name: 'Main', slug: 'main' });
    const conversation = await conversations.create(alice, { agent_id: 'main' });
    await storage.messages.append(conversation.thread_id, null, 0, [{ role: 'user', content: 'hi' }]);
    await storage.messages.append(conversation.thread_id, null, 1, [{ role: 'assistant', content: 'hello' }]);
    const messages = await conversations.messages(alice, conversation.id);
    expect(messages.map((message) => message.message.content)).toEqual(['hi', 'hello']);
  });

  it('will not archive a child conversation', async () => {
    const agent = await agents.create(alice, { name: 'Main', slug: 'main' });
    const project = await projects.defaultProject(alice);
    const child = await storage.conversations.create({
      user_id: alice.id,
      agent_id: agent.id,
      thread_id: 'subagent_x',
      project_id: project.id,
      status: 'subagent',
      title: 'SubAgent: Main',
      metadata: {},
    });
    expect(await codeOf(conversations.patch(alice, child.id, { status: 'archived' }))).toBe(
      'validation_failed',
    );
    expect((await conversations.patch(alice, child.id, { title: 'Renamed' })).status).toBe('subagent');
  });
});
