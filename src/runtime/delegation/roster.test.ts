import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { NewAgent, Storage } from '../../core/ports/storage.js';
import type { Agent } from '../../core/records/agent.js';
import type { User } from '../../core/records/user.js';
import { createRuntimeHarness, type RuntimeHarness } from '../../../test/helpers/create-runtime-harness.js';
import { createDelegationPolicyService } from './delegation-policy-service.js';
import { buildRoster } from './roster.js';

let h: RuntimeHarness;
let alice: User;
let bob: User;
let experts: Record<'open' | 'granted' | 'secret' | 'closed' | 'draft' | 'gone' | 'current', Agent>;

const published = { status: 'published', visibility: 'public' } satisfies Partial<NewAgent>;

beforeEach(async () => {
  h = await createRuntimeHarness({ startWorker: false });
  alice = await h.createUser('alice');
  bob = await h.createUser('bob');
  experts = {
    open: await h.createAgent(bob, 'open', {}, { ...published, delegation_brief: 'Takes any task.' }),
    granted: await h.createAgent(
      bob,
      'granted',
      {},
      { ...published, visibility: 'private', description: 'Bought it.' },
    ),
    secret: await h.createAgent(bob, 'secret', {}, { ...published, visibility: 'private' }),
    closed: await h.createAgent(bob, 'closed', {}, { ...published, delegatable: false }),
    draft: await h.createAgent(bob, 'draft', {}, { ...published, status: 'draft' }),
    gone: await h.createAgent(bob, 'gone', {}, published),
    current: await h.createAgent(alice, 'current', {}, published),
  };
  await h.storage.access.grant(alice.id, experts.granted.id, 'purchased');
  await h.storage.agents.softDelete(experts.gone.id, new Date().toISOString());
});
afterEach(async () => h.close());

async function rosterFor(
  policy: User['delegation_policy'],
  whitelist: string[],
  message = '',
): Promise<string[]> {
  const user = await h.storage.users.setDelegationPolicy(alice.id, policy, whitelist);
  const roster = await buildRoster(h.storage, { user, currentAgentId: experts.current.id, message });
  return roster.map((entry) => entry.agent.slug);
}

describe('roster per run', () => {
  it('policy all: every expert passing the four conditions, self excluded, with its brief', async () => {
    const user = await h.storage.users.setDelegationPolicy(alice.id, 'all', []);
    const roster = await buildRoster(h.storage, { user, currentAgentId: experts.current.id, message: '' });
    expect(roster.map((entry) => [entry.agent.slug, entry.brief])).toEqual([
      ['granted', 'Bought it.'],
      ['open', 'Takes any task.'],
    ]);
  });

  it.each([
    ['no access', 'secret'],
    ['not delegatable', 'closed'],
    ['draft', 'draft'],
    ['deleted', 'gone'],
    ['self', 'current'],
  ] as const)('leaves out an expert with %s, whitelisted and @mentioned or not', async (_condition, slug) => {
    expect(await rosterFor('all', [])).not.toContain(slug);
    expect(await rosterFor('whitelist', [slug, 'open'], `please ask @${slug}`)).toEqual(['open']);
    expect(await rosterFor('none', [], `please ask @${slug}`)).toEqual([]);
  });

  it('policy none: nothing without mentions; a mention of an inaccessible expert is ignored', async () => {
    expect(await rosterFor('none', [])).toEqual([]);
    expect(await rosterFor('none', [], 'Ask @secret, then @open and @nobody')).toEqual(['open']);
  });

  it('policy whitelist: the listed experts (by slug or id) plus mentions', async () => {
    expect(await rosterFor('whitelist', [experts.granted.id])).toEqual(['granted']);
    expect(await rosterFor('whitelist', [experts.granted.id], 'and @open')).toEqual(['granted', 'open']);
  });

  it('a whitelist of 15 keeps 10: the 5 dropped are reported, logged and never in the roster', async () => {
    const slugs: string[] = [];
    for (let index = 1; index <= 15; index += 1) {
      const slug = `expert-${String(index).padStart(2, '0')}`;
      await h.createAgent(bob, slug, {}, published);
      slugs.push(slug);
    }
    const lines: Record<string, unknown>[] = [];
    const policies = createDelegationPolicyService(h.storage, (message, context) =>
      lines.push({ message, ...context }),
    );
    const saved = await policies.set(alice, { policy: 'whitelist', whitelist: slugs });
    expect(saved.whitelist).toEqual(slugs.slice(0, 10));
    expect(saved.dropped).toEqual(slugs.slice(10));
    expect(lines).toEqual([
      expect.objectContaining({ event: 'delegation_whitelist_truncated', dropped: slugs.slice(10) }),
    ]);
    const user = (await h.storage.users.get(alice.id)) as User;
    const roster = await buildRoster(h.storage, { user, currentAgentId: experts.current.id, message: '' });
    expect(roster.map((entry) => entry.agent.slug)).toEqual(slugs.slice(0, 10));
  });

  it('asks storage exactly once: the four conditions are never re-checked in code', async () => {
    const user = await h.storage.users.setDelegationPolicy(alice.id, 'whitelist', ['open', 'secret']);
    const calls: string[] = [];
    const counting = new Proxy(h.storage, {
      get(target, repository: keyof Storage) {
        const value: unknown = Reflect.get(target, repository);
        if (typeof value !== 'object' || value === null) return value;
        return new Proxy(value, {
          get(repo: object, method: string) {
            const member: unknown = Reflect.get(repo, method);
            if (typeof member !== 'function') return member;
            return (...args: unknown[]) => {
              calls.push(`${String(repository)}.${method}`);
              return Reflect.apply(member as (...a: unknown[]) => unknown, repo, args);
            };
          },
        });
      },
    });
    const roster = await buildRoster(counting, {
      user,
      currentAgentId: experts.current.id,
      message: 'and @closed',
    });
    expect(roster.map((entry) => entry.agent.slug)).toEqual(['open']);
    expect(calls).toEqual(['agents.listDelegatable']);
  });
});
