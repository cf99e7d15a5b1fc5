import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isTroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { User } from '../../core/records/user.js';
import type { TestStorage } from '../../../test/helpers/http/create-test-storage.js';
import { createTestStorage } from '../../../test/helpers/http/create-test-storage.js';
import type { AgentService } from './agent-service.js';
import { createAgentService } from './agent-service.js';

let testStorage: TestStorage;
let storage: Storage;
let agents: AgentService;
let admin: User;
let alice: User;
let bob: User;

beforeEach(async () => {
  testStorage = await createTestStorage();
  storage = testStorage.storage;
  agents = createAgentService(storage);
  admin = await storage.users.create({ name: 'root', role: 'admin' });
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

describe('agent service: create', () => {
  it('derives is_subagent from the backend and the backend from is_subagent', async () => {
    const chat = await agents.create(alice, { name: 'Chat', slug: 'chat-one' });
    expect([chat.backend, chat.is_subagent]).toEqual(['chat', false]);
    const sub = await agents.create(alice, { name: 'Sub', slug: 'sub-one', backend: 'subagent' });
    expect([sub.backend, sub.is_subagent]).toEqual(['subagent', true]);
    const implied = await agents.create(alice, { name: 'Sub2', slug: 'sub-two', is_subagent: true });
    expect([implied.backend, implied.is_subagent]).toEqual(['subagent', true]);
  });

  it('refuses a backend that contradicts is_subagent', async () => {
    expect(
      await codeOf(agents.create(alice, { name: 'X', slug: 'x1', backend: 'chat', is_subagent: true })),
    ).toBe('agent_backend_mismatch');
    expect(
      await codeOf(agents.create(alice, { name: 'X', slug: 'x2', backend: 'subagent', is_subagent: false })),
    ).toBe('agent_backend_mismatch');
    expect(await storage.agents.listUsable(admin, { include_subagents: true })).toHaveLength(0);
  });

  it('grants the owner `created` access in the same transaction', async () => {
    const agent = await agents.create(alice, { name: 'Mine', slug: 'mine' });
    expect(await storage.access.listForAgent(agent.id)).toMatchObject([
      { user_id: alice.id, source: 'created' },
    ]);
  });

  it('rolls the whole create back when a later write fails', async () => {
    // The grant write fails inside the transaction: the agent row must not survive it.
    let calls = 0;
    const failingGrant = (): Promise<never> => {
      calls += 1;
      return Promise.reject(new Error('disk full'));
    };
    const wrap = (store: Storage): Storage =>
      new Proxy(store, {
        get(target, property) {
          if (property === 'transaction') {
            return <T>(work: (tx: Storage) => Promise<T>) => target.transaction((tx) => work(wrap(tx)));
          }
          if (property === 'access') {
            return new Proxy(target.access, {
              get: (access, name) =>
                name === 'grant' ? failingGrant : (Reflect.get(access, name) as unknown),
            });
          }
          return Reflect.get(target, property) as unknown;
        },
      });
    await expect(
      createAgentService(wrap(storage)).create(alice, { name: 'Doomed', slug: 'doomed' }),
    ).rejects.toThrow('disk full');
    expect(calls).toBe(1);
    expect(await storage.agents.getBySlug('doomed')).toBeUndefined();
  });

  it('derives a free slug from the name and refuses a taken explicit slug', async () => {
    const first = await agents.create(alice, { name: 'Research Helper' });
    const second = await agents.create(bob, { name: 'Research Helper' });
    expect([first.slug, second.slug]).toEqual(['research-helper', 'research-helper-2']);
    expect(await codeOf(agents.create(bob, { name: 'Other', slug: 'research-helper' }))).toBe(
      'agent_slug_taken',
    );
    expect(await codeOf(agents.create(bob, { name: '日本語' }))).toBe('validation_failed');
  });

  it('validates slugs: identifier style, not reserved, not id-shaped', async () => {
    for (const slug of ['Upper', '1abc', 'a', 'has space', 'default', 'runs', 'agt_0123456789abcdef0123']) {
      expect(await codeOf(agents.create(alice, { name: 'X', slug }))).toBe('validation_failed');
    }
    expect((await agents.create(alice, { name: 'X', slug: 'ok_slug-2' })).slug).toBe('ok_slug-2');
  });

  it('validates config strictly, including tool_approval_mode, but keeps subagent_specs loose', async () => {
    const bad = [
      { unknown_key: true },
      { tool_approval_mode: 'yolo' },
      { tools: 'read_file' },
      { mcp_servers: [{ name: 'x', transport: 'stdio' }] },
    ];
    for (const config of bad) {
      expect(await codeOf(agents.create(alice, { name: 'X', slug: 'cfg', config: config as never }))).toBe(
        'validation_failed',
      );
    }
    const agent = await agents.create(alice, {
      name: 'X',
      slug: 'cfg',
      config: { tool_approval_mode: 'always_trust', subagent_specs: [42, { name: 'anything' }] },
    });
    expect(agent.config.subagent_specs).toEqual([42, { name: 'anything' }]);
  });

  it('refuses is_default on a subagent, and from a member', async () => {
    expect(
      await codeOf(agents.create(admin, { name: 'S', slug: 's1', backend: 'subagent', is_default: true })),
    ).toBe('subagent_cannot_be_default');
    expect(await codeOf(agents.create(alice, { name: 'C', slug: 'c1', is_default: true }))).toBe('forbidden');
    const first = await agents.create(admin, {
      name: 'C',
      slug: 'c2',
      is_default: true,
      visibility: 'public',
    });
    const second = await agents.create(admin, {
      name: 'D',
      slug: 'd2',
      is_default: true,
      visibility: 'public',
    });
    expect(first.is_default && second.is_default).toBe(true);
    expect((await agents.getDefault(alice)).id).toBe(second.id);
    expect((await storage.agents.get(first.id))?.is_default).toBe(false);
  });
});

describe('agent service: visibility', () => {
  it('hides subagents from the list unless asked, and lists only usable agents', async () => {
    await agents.create(alice, { name: 'Main', slug: 'main' });
    await agents.create(alice, { name: 'Helper', slug: 'helper', backend: 'subagent' });
    await agents.create(bob, { name: 'Bobs', slug: 'bobs' });
    await agents.create(bob, { name: 'Open', slug: 'open', visibility: 'public' });
    expect((await agents.list(alice)).map((agent) => agent.slug).sort()).toEqual(['main', 'open']);
    expect((await agents.list(alice, { include_subagents: true })).map((agent) => agent.slug).sort()).toEqual(
      ['helper', 'main', 'open'],
    );
    expect((await agents.list(admin, { include_subagents: true })).length).toBe(4);
  });

  it('answers agent_not_found for a foreign private or shared agent, by id and by slug', async () => {
    const secret = await agents.create(bob, { name: 'Secret', slug: 'secret' });
    const shared = await agents.create(bob, { name: 'Shared', slug: 'shared', visibility: 'shared' });
    for (const key of [secret.id, 'secret', shared.id, 'shared', 'nope', 'agt_00000000000000000000']) {
      expect(await codeOf(agents.get(alice, key))).toBe('agent_not_found');
    }
    await storage.access.grant(alice.id, shared.id, 'granted');
    expect((await agents.get(alice, 'shared')).id).toBe(shared.id);
    expect((await agents.get(admin, secret.id)).id).toBe(secret.id);
  });

  it('lets a grant holder or any user of a public agent read it, but not change it', async () => {
    const open = await agents.create(bob, { name: 'Open', slug: 'open', visibility: 'public' });
    expect((await agents.get(alice, 'open')).id).toBe(open.id);
    expect(await codeOf(agents.update(alice, 'open', { name: 'Mine now' }))).toBe('forbidden');
    expect(await codeOf(agents.delete(alice, 'open'))).toBe('forbidden');
    expect(await codeOf(agents.update(alice, 'secret-nothing', { name: 'x' }))).toBe('agent_not_found');
    expect((await agents.update(admin, 'open', { name: 'Renamed' })).name).toBe('Renamed');
  });
});

describe('agent service: update, delete, default', () => {
  it('keeps the backend immutable and re-validates is_subagent', async () => {
    await agents.create(alice, { name: 'Main', slug: 'main' });
    expect(await codeOf(agents.update(alice, 'main', { backend: 'subagent' }))).toBe(
      'agent_backend_mismatch',
    );
    expect(await codeOf(agents.update(alice, 'main', { is_subagent: true }))).toBe('agent_backend_mismatch');
    const same = await agents.update(alice, 'main', {
      backend: 'chat',
      is_subagent: false,
      description: 'd',
    });
    expect(same.description).toBe('d');
  });

  it('renames slugs with the uniqueness check, and validates config', async () => {
    await agents.create(alice, { name: 'A', slug: 'aaa' });
    await agents.create(alice, { name: 'B', slug: 'bbb' });
    expect(await codeOf(agents.update(alice, 'aaa', { slug: 'bbb' }))).toBe('agent_slug_taken');
    expect(
      await codeOf(agents.update(alice, 'aaa', { config: { tool_approval_mode: 'nope' as never } })),
    ).toBe('validation_failed');
    expect((await agents.update(alice, 'aaa', { slug: 'ccc' })).slug).toBe('ccc');
    expect(await codeOf(agents.get(alice, 'aaa'))).toBe('agent_not_found');
  });

  it('soft-deletes: the agent disappears for everyone but the row stays', async () => {
    const agent = await agents.create(alice, { name: 'A', slug: 'gone', visibility: 'public' });
    await agents.delete(alice, 'gone');
    expect(await codeOf(agents.get(alice, 'gone'))).toBe('agent_not_found');
    expect(await codeOf(agents.get(admin, agent.id))).toBe('agent_not_found');
    expect((await storage.agents.get(agent.id))?.deleted_at).not.toBeNull();
    expect(await agents.list(alice)).toHaveLength(0);
  });

  it('never deletes the default agent', async () => {
    await agents.create(admin, { name: 'D', slug: 'dflt', visibility: 'public', is_default: true });
    expect(await codeOf(agents.delete(admin, 'dflt'))).toBe('forbidden');
    expect((await agents.getDefault(alice)).slug).toBe('dflt');
  });

  it('sets the default: admin only, never a subagent', async () => {
    await agents.create(alice, { name: 'Mine', slug: 'mine', visibility: 'public' });
    await agents.create(admin, { name: 'S', slug: 'sub', backend: 'subagent' });
    expect(await codeOf(agents.getDefault(alice))).toBe('agent_not_found');
    expect(await codeOf(agents.setDefault(alice, 'mine'))).toBe('forbidden');
    expect(await codeOf(agents.setDefault(admin, 'sub'))).toBe('subagent_cannot_be_default');
    expect((await agents.setDefault(admin, 'mine')).is_default).toBe(true);
    expect((await agents.getDefault(bob)).slug).toBe('mine');
  });

  it('reports a default agent the actor cannot use as not found', async () => {
    await agents.create(admin, { name: 'Private default', slug: 'pd', is_default: true });
    expect(await codeOf(agents.getDefault(alice))).toBe('agent_not_found');
    expect((await agents.getDefault(admin)).slug).toBe('pd');
  });
});
