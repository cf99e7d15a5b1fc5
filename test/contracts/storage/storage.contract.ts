import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contractRunInput } from './contract-run-input.js';
import { TroupeError, isTroupeError } from '../../../src/core/errors.js';
import type { ErrorCode } from '../../../src/core/errors.js';
import { newId, newRunId } from '../../../src/core/ids.js';
import type { AgentVisibility } from '../../../src/core/records/agent.js';
import type { Conversation } from '../../../src/core/records/conversation.js';
import type { Run, RunStatus } from '../../../src/core/records/run.js';
import type { User } from '../../../src/core/records/user.js';
import type { NewAgent, NewRun, Storage } from '../../../src/core/ports/storage.js';
import { describeSkillStorageContract } from './skill-storage.contract.js';
import { describeKnowledgeContract } from './knowledge.contract.js';
import { describeRunListContract } from './run-list.contract.js';
import { describeRunBudgetContract } from './run-budget.contract.js';
import { describeRunAttemptContextContract } from './run-attempt-context.contract.js';
import { describeSharedCommitContract } from './shared-commit.contract.js';
import { describeHumanInputAndFilesContract } from './human-input-and-files.contract.js';
import { describeMessageUsageContract } from './message-usage.contract.js';
import { describeRunForksContract } from './run-forks.contract.js';
import { describeRunVerificationsContract } from './run-verifications.contract.js';
import { describeToolCallJournalContract } from './tool-call-journal.contract.js';
import { walkRunTo } from '../../helpers/walk-run-to.js';

/** A field of a payload these suites wrote themselves: storage keeps any payload it is given. */
const fieldOf = (payload: Record<string, unknown>, key: string): unknown => payload[key];

export interface OpenedStorage {
  storage: Storage;
  /** Closes the store and removes whatever `open` created (file, schema, database). */
  close(): Promise<void>;
}

/*
 * The behaviour every Storage adapter must show, run against a real database by each adapter's test.
 * Each test gets a fresh, empty store from `open`. Names that are sorted are lowercase ASCII so that
 * binary (SQLite) and locale (PostgreSQL) collations agree.
 */

const FAR_PAST = '2000-01-01T00:00:00.000Z';
const FAR_FUTURE = '2999-01-01T00:00:00.000Z';

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<TroupeError> {
  const error: unknown = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error, `expected TroupeError(${code})`).toBeInstanceOf(TroupeError);
  expect((error as TroupeError).code).toBe(code);
  return error as TroupeError;
}

function agentInput(ownerId: string, overrides: Partial<NewAgent> = {}): NewAgent {
  const slug = overrides.slug ?? `agent-${newId('agt').slice(4, 12)}`;
  return {
    slug,
    name: slug,
    description: `${slug} description`,
    backend: 'chat',
    is_subagent: false,
    owner_id: ownerId,
    visibility: 'private',
    config: {},
    status: 'draft',
    delegatable: true,
    delegation_brief: null,
    is_default: false,
    ...overrides,
  };
}

interface World {
  admin: User;
  alice: User;
  bob: User;
  conversation: Conversation;
}

async function seedWorld(storage: Storage): Promise<World> {
  const admin = await storage.users.create({ name: 'admin', role: 'admin' });
  const alice = await storage.users.create({ name: 'alice', role: 'member' });
  const bob = await storage.users.create({ name: 'bob', role: 'member' });
  const agent = await storage.agents.create(agentInput(alice.id, { slug: 'assistant' }));
  const project = await storage.projects.create({
    user_id: alice.id,
    name: 'default',
    workdir: '/tmp/alice',
  });
  const conversation = await storage.conversations.create({
    user_id: alice.id,
    agent_id: agent.id,
    thread_id: newId('thr'),
    project_id: project.id,
    status: 'active',
    title: 'First chat',
    metadata: {},
  });
  return { admin, alice, bob, conversation };
}

/** One seeded world per fresh store, for contract parts that make several runs. */
const worlds = new WeakMap<Storage, World>();

/** A root run on the conversation's thread unless overridden. */
function runInput(conversation: Conversation, overrides: Partial<NewRun> = {}): NewRun {
  return contractRunInput(conversation, {
    input: { message: 'hello', nested: { list: [1, 2, 3] } },
    ...overrides,
  });
}

/** A subagent run on a thread of its own, created by `createdBy` in the tree of `root`. */
function childRunInput(conversation: Conversation, root: Run, createdBy: Run, depth: number): NewRun {
  return runInput(conversation, {
    thread_id: newId('thr'),
    run_type: 'subagent',
    created_by_run_id: createdBy.id,
    root_run_id: root.id,
    depth,
  });
}

async function settleAll<T>(promises: Promise<T>[]): Promise<{ ok: T[]; errors: unknown[] }> {
  const results = await Promise.allSettled(promises);
  return {
    ok: results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : [])),
    errors: results.flatMap((result) => (result.status === 'rejected' ? [result.reason as unknown] : [])),
  };
}

function codesOf(errors: unknown[]): string[] {
  return errors.map((error) => (isTroupeError(error) ? error.code : String(error)));
}

export function describeStorageContract(adapterName: string, open: () => Promise<OpenedStorage>): void {
  describe(`Storage contract: ${adapterName}`, () => {
    let opened: OpenedStorage;
    let storage: Storage;

    beforeEach(async () => {
      opened = await open();
      storage = opened.storage;
    });

    afterEach(async () => {
      await opened.close();
    });

    describe('users', () => {
      it('creates, reads and lists users with default delegation settings', async () => {
        const alice = await storage.users.create({ name: 'alice', role: 'member' });
        const root = await storage.users.create({ name: 'root', role: 'admin' });
        expect(alice).toMatchObject({
          name: 'alice',
          role: 'member',
          delegation_policy: 'none',
          delegation_whitelist: [],
        });
        expect(alice.id).toMatch(/^usr_[0-9a-f]{20}$/);
        expect(Date.parse(alice.created_at)).not.toBeNaN();
        expect(await storage.users.get(alice.id)).toEqual(alice);
        expect(await storage.users.getByName('root')).toEqual(root);
        expect(await storage.users.get('usr_missing')).toBeUndefined();
        expect(await storage.users.getByName('nobody')).toBeUndefined();
        expect((await storage.users.list()).map((user) => user.id).sort()).toEqual(
          [alice.id, root.id].sort(),
        );
      });

      it('stores the delegation policy and whitelist', async () => {
        const alice = await storage.users.create({ name: 'alice', role: 'member' });
        const updated = await storage.users.setDelegationPolicy(alice.id, 'whitelist', ['writer', 'critic']);
        expect(updated).toEqual({
          ...alice,
          delegation_policy: 'whitelist',
          delegation_whitelist: ['writer', 'critic'],
        });
        expect(await storage.users.get(alice.id)).toEqual(updated);
        await expectCode(storage.users.setDelegationPolicy('usr_missing', 'all', []), 'user_not_found');
      });

      it('refuses a second user with the same name', async () => {
        await storage.users.create({ name: 'alice', role: 'member' });
        await expectCode(storage.users.create({ name: 'alice', role: 'admin' }), 'user_exists');
      });
    });

    describe('tokens', () => {
      it('creates, finds by hash, touches and lists tokens', async () => {
        const alice = await storage.users.create({ name: 'alice', role: 'member' });
        const token = await storage.tokens.create({
          user_id: alice.id,
          name: 'cli',
          prefix: 'trp_ab',
          token_hash: 'h1',
        });
        expect(token).toMatchObject({ user_id: alice.id, name: 'cli', prefix: 'trp_ab', token_hash: 'h1' });
        expect(token).toMatchObject({ last_used_at: null, revoked_at: null });
        expect(await storage.tokens.findActiveByHash('h1')).toEqual(token);
        expect(await storage.tokens.findActiveByHash('h2')).toBeUndefined();
        await storage.tokens.touch(token.id, '2030-01-01T00:00:00.000Z');
        expect((await storage.tokens.findActiveByHash('h1'))?.last_used_at).toBe('2030-01-01T00:00:00.000Z');
        const other = await storage.tokens.create({
          user_id: alice.id,
          name: 'ci',
          prefix: 'trp_cd',
          token_hash: 'h2',
        });
        expect((await storage.tokens.listForUser(alice.id)).map((t) => t.id).sort()).toEqual(
          [token.id, other.id].sort(),
        );
      });

      it('revokes one token, or every live token of a name, only for its owner', async () => {
        const alice = await storage.users.create({ name: 'alice', role: 'member' });
        const bob = await storage.users.create({ name: 'bob', role: 'member' });
        const one = await storage.tokens.create({
          user_id: alice.id,
          name: 'cli',
          prefix: 'p1',
          token_hash: 'h1',
        });
        await storage.tokens.create({ user_id: alice.id, name: 'ci', prefix: 'p2', token_hash: 'h2' });
        await storage.tokens.create({ user_id: alice.id, name: 'ci', prefix: 'p3', token_hash: 'h3' });
        expect(await storage.tokens.revoke(bob.id, one.id)).toBe(false);
        expect(await storage.tokens.revoke(alice.id, one.id)).toBe(true);
        expect(await storage.tokens.revoke(alice.id, one.id)).toBe(false);
        expect(await storage.tokens.findActiveByHash('h1')).toBeUndefined();
        expect(await storage.tokens.revokeByName(bob.id, 'ci')).toBe(0);
        expect(await storage.tokens.revokeByName(alice.id, 'ci')).toBe(2);
        expect(await storage.tokens.revokeByName(alice.id, 'ci')).toBe(0);
        expect(await storage.tokens.findActiveByHash('h3')).toBeUndefined();
        const listed = await storage.tokens.listForUser(alice.id);
        expect(listed).toHaveLength(3);
        expect(listed.every((t) => t.revoked_at !== null)).toBe(true);
      });
    });

    describe('agents', () => {
      it('round-trips every field', async () => {
        const alice = await storage.users.create({ name: 'alice', role: 'member' });
        const input = agentInput(alice.id, {
          slug: 'researcher',
          name: 'Researcher',
          backend: 'subagent',
          is_subagent: true,
          visibility: 'shared',
          config: {
            system_prompt: 'Find facts.',
            model: 'scripted:demo',
            tools: ['read_file', 'mcp__web__*'],
            subagent_specs: [{ name: 'x', description: 'y', system_prompt: 'z', tools: ['*'] }],
            tool_approval_mode: 'always_trust',
            max_steps: 7,
          },
          status: 'published',
          delegatable: false,
          delegation_brief: 'Digs up sources',
        });
        const agent = await storage.agents.create(input);
        expect(agent).toEqual({
          ...input,
          id: agent.id,
          is_default: false,
          deleted_at: null,
          created_at: agent.created_at,
          updated_at: agent.created_at,
        });
        expect(agent.id).toMatch(/^agt_/);
        expect(await storage.agents.get(agent.id)).toEqual(agent);
        expect(await storage.agents.getBySlug('researcher')).toEqual(agent);
        expect(await storage.agents.get('agt_missing')).toBeUndefined();
        expect(await storage.agents.getBySlug('missing')).toBeUndefined();
      });

      it('updates only the patched fields and refreshes updated_at', async () => {
        const alice = await storage.users.create({ name: 'alice', role: 'member' });
        const agent = await storage.agents.create(
          agentInput(alice.id, { slug: 'writer', delegation_brief: 'brief' }),
        );
        await delay(5);
        const updated = await storage.agents.update(agent.id, {
          name: 'Writer Two',
          visibility: 'public',
          config: { model: 'openai:gpt-4o-mini' },
          delegatable: false,
          delegation_brief: null,
          status: 'published',
        });
        expect(updated).toEqual({
          ...agent,
          name: 'Writer Two',
          visibility: 'public',
          config: { model: 'openai:gpt-4o-mini' },
          delegatable: false,
          delegation_brief: null,
          status: 'published',
          updated_at: updated.updated_at,
        });
        expect(updated.updated_at > agent.updated_at).toBe(true);
        expect(await storage.agents.get(agent.id)).toEqual(updated);
        await expectCode(storage.agents.update('agt_missing', { name: 'x' }), 'agent_not_found');
      });

      it('refuses a taken slug on create and on update', async () => {
        const alice = await storage.users.create({ name: 'alice', role: 'member' });
        await storage.agents.create(agentInput(alice.id, { slug: 'writer' }));
        const other = await storage.agents.create(agentInput(alice.id, { slug: 'editor' }));
        await expectCode(storage.agents.create(agentInput(alice.id, { slug: 'writer' })), 'agent_slug_taken');
        await expectCode(storage.agents.update(other.id, { slug: 'writer' }), 'agent_slug_taken');
        expect((await storage.agents.get(other.id))?.slug).toBe('editor');
      });

      it('soft-deletes: the agent stays readable by id, keeps its first deletion time and stops being default', async () => {
        const alice = await storage.users.create({ name: 'alice', role: 'member' });
        const agent = await storage.agents.create(agentInput(alice.id, { is_default: true }));
        await storage.agents.softDelete(agent.id, '2030-01-01T00:00:00.000Z');
        await storage.agents.softDelete(agent.id, '2031-01-01T00:00:00.000Z');
        const deleted = await storage.agents.get(agent.id);
        expect(deleted?.deleted_at).toBe('2030-01-01T00:00:00.000Z');
        expect(deleted?.is_default).toBe(false);
        expect(await storage.agents.getDefault()).toBeUndefined();
        await expectCode(storage.agents.softDelete('agt_missing', FAR_PAST), 'agent_not_found');
      });

      it('keeps exactly one default agent', async () => {
        const alice = await storage.users.create({ name: 'alice', role: 'member' });
        expect(await storage.agents.getDefault()).toBeUndefined();
        const first = await storage.agents.create(agentInput(alice.id, { slug: 'first', is_default: true }));
        const second = await storage.agents.create(
          agentInput(alice.id, { slug: 'second', is_default: true }),
        );
        const third = await storage.agents.create(agentInput(alice.id, { slug: 'third' }));
        const defaults = async () =>
          (await storage.agents.listUsable({ id: alice.id, role: 'admin' }))
            .filter((a) => a.is_default)
            .map((a) => a.id);
        expect(await defaults()).toEqual([second.id]);
        expect((await storage.agents.getDefault())?.id).toBe(second.id);

        await storage.agents.setDefault(third.id);
        expect(await defaults()).toEqual([third.id]);
        await storage.agents.update(first.id, { is_default: true });
        expect(await defaults()).toEqual([first.id]);

        // A failed setDefault must not leave the store without its default.
        await expectCode(storage.agents.setDefault('agt_missing'), 'agent_not_found');
        expect((await storage.agents.getDefault())?.id).toBe(first.id);
        await expectCode(storage.agents.update('agt_missing', { is_default: true }), 'agent_not_found');
        expect((await storage.agents.getDefault())?.id).toBe(first.id);

        const results = await settleAll(
          [second, third, first].map((agent) => storage.agents.setDefault(agent.id)),
        );
        expect(results.errors).toEqual([]);
        expect(await defaults()).toHaveLength(1);
      });

      describe('listUsable', () => {
        async function catalogue() {
          const world = await seedWorld(storage);
          const { alice, bob } = world;
          const make = (
            slug: string,
            ownerId: string,
            visibility: AgentVisibility,
            extra: Partial<NewAgent> = {},
          ) => storage.agents.create(agentInput(ownerId, { slug, name: slug, visibility, ...extra }));
          const agents = {
            bobPrivate: await make('bob-private', bob.id, 'private'),
            bobShared: await make('bob-shared', bob.id, 'shared'),
            bobPublic: await make('bob-public', bob.id, 'public'),
            bobGranted: await make('bob-granted', bob.id, 'private'),
            alicePrivate: await make('alice-private', alice.id, 'private'),
            aliceDeleted: await make('alice-deleted', alice.id, 'private'),
            bobPublicSubagent: await make('bob-sub', bob.id, 'public', {
              backend: 'subagent',
              is_subagent: true,
            }),
            bobDefault: await make('zz-default', bob.id, 'public', { is_default: true }),
          };
          await storage.access.grant(alice.id, agents.bobGranted.id, 'granted');
          await storage.agents.softDelete(agents.aliceDeleted.id, '2030-01-01T00:00:00.000Z');
          // `assistant` comes from seedWorld and belongs to alice.
          return { ...world, agents };
        }

        it('gives a member their own, public and granted agents, default first then by name', async () => {
          const { alice } = await catalogue();
          const slugs = (await storage.agents.listUsable({ id: alice.id, role: 'member' })).map(
            (a) => a.slug,
          );
          expect(slugs).toEqual(['zz-default', 'alice-private', 'assistant', 'bob-granted', 'bob-public']);
        });

        it('hides other users private and shared agents without a grant', async () => {
          const { bob } = await catalogue();
          const slugs = (await storage.agents.listUsable({ id: bob.id, role: 'member' })).map((a) => a.slug);
          expect(slugs).toEqual(['zz-default', 'bob-granted', 'bob-private', 'bob-public', 'bob-shared']);
          const stranger = await storage.users.create({ name: 'carol', role: 'member' });
          const visible = (await storage.agents.listUsable({ id: stranger.id, role: 'member' })).map(
            (a) => a.slug,
          );
          expect(visible).toEqual(['zz-default', 'bob-public']);
        });

        it('gives an admin every agent', async () => {
          const { admin } = await catalogue();
          const slugs = (await storage.agents.listUsable({ id: admin.id, role: 'admin' })).map((a) => a.slug);
          expect(slugs).toEqual([
            'zz-default',
            'alice-private',
            'assistant',
            'bob-granted',
            'bob-private',
            'bob-public',
            'bob-shared',
          ]);
        });

        it('includes subagents and deleted agents only when asked', async () => {
          const { alice } = await catalogue();
          const member = { id: alice.id, role: 'member' } as const;
          const withSubagents = await storage.agents.listUsable(member, { include_subagents: true });
          expect(withSubagents.map((a) => a.slug)).toContain('bob-sub');
          expect(withSubagents.find((a) => a.slug === 'bob-sub')?.is_subagent).toBe(true);
          const withDeleted = await storage.agents.listUsable(member, { include_deleted: true });
          expect(withDeleted.map((a) => a.slug)).toContain('alice-deleted');
          expect(withDeleted.map((a) => a.slug)).not.toContain('bob-sub');
        });

        it('lists only subagents, and only the named slugs, still within what the user may use', async () => {
          const { alice } = await catalogue();
          const member = { id: alice.id, role: 'member' } as const;
          const subagents = await storage.agents.listUsable(member, { subagents_only: true });
          expect(subagents.length).toBeGreaterThan(0);
          expect(subagents.every((agent) => agent.is_subagent)).toBe(true);
          const named = await storage.agents.listUsable(member, {
            include_subagents: true,
            slugs: ['bob-sub', 'bob-public', 'bob-private', 'no-such-agent'],
          });
          // bob-private is not Alice's to use: naming it does not make it visible.
          expect(named.map((agent) => agent.slug).sort()).toEqual(['bob-public', 'bob-sub']);
          expect(await storage.agents.listUsable(member, { include_subagents: true, slugs: [] })).toEqual([]);
          const namedSubagents = await storage.agents.listUsable(member, {
            subagents_only: true,
            slugs: ['bob-sub', 'bob-public', 'no-such-agent'],
          });
          expect(namedSubagents.map((agent) => agent.slug)).toEqual(['bob-sub']);
          const admin = { id: alice.id, role: 'admin' } as const;
          const everySubagent = await storage.agents.listUsable(admin, { subagents_only: true });
          expect(everySubagent.map((agent) => agent.slug)).toEqual(
            (await storage.agents.listUsable(admin, { include_subagents: true }))
              .filter((agent) => agent.is_subagent)
              .map((agent) => agent.slug),
          );
        });
      });

      describe('listDelegatable', () => {
        /** One expert per way of failing the four conditions of docs/delegation.md, plus the ones that pass. */
        async function experts() {
          const world = await seedWorld(storage);
          const { alice, bob } = world;
          const expert = (slug: string, ownerId: string, extra: Partial<NewAgent> = {}) =>
            storage.agents.create(
              agentInput(ownerId, { slug, name: slug, visibility: 'public', status: 'published', ...extra }),
            );
          const agents = {
            open: await expert('e-open', bob.id, { delegation_brief: 'Brief for models' }),
            granted: await expert('e-granted', bob.id, { visibility: 'private', description: 'For people' }),
            own: await expert('e-own', alice.id, { visibility: 'private', description: '' }),
            noAccess: await expert('e-no-access', bob.id, { visibility: 'shared' }),
            notDelegatable: await expert('e-not-delegatable', bob.id, { delegatable: false }),
            draft: await expert('e-draft', bob.id, { status: 'draft' }),
            deleted: await expert('e-deleted', bob.id),
            subagent: await expert('e-subagent', bob.id, { backend: 'subagent', is_subagent: true }),
          };
          await storage.access.grant(alice.id, agents.granted.id, 'purchased');
          await storage.agents.softDelete(agents.deleted.id, '2030-01-01T00:00:00.000Z');
          return { ...world, agents };
        }

        it('returns only experts passing all four conditions, never subagents, by name', async () => {
          const { alice } = await experts();
          const found = await storage.agents.listDelegatable({ id: alice.id, role: 'member' });
          expect(found.map((entry) => entry.agent.slug)).toEqual(['e-granted', 'e-open', 'e-own']);
        });

        it('computes the brief as coalesce(delegation_brief, description, "")', async () => {
          const { alice } = await experts();
          const found = await storage.agents.listDelegatable({ id: alice.id, role: 'member' });
          expect(Object.fromEntries(found.map((entry) => [entry.agent.slug, entry.brief]))).toEqual({
            'e-granted': 'For people',
            'e-open': 'Brief for models',
            'e-own': '',
          });
          expect(found[0]?.agent).toEqual(await storage.agents.get(found[0]?.agent.id ?? ''));
        });

        it('excludes the current expert and filters by ids or slugs; empty lists match nothing', async () => {
          const { alice, agents } = await experts();
          const member = { id: alice.id, role: 'member' } as const;
          const slugsOf = async (filter: Parameters<typeof storage.agents.listDelegatable>[1]) =>
            (await storage.agents.listDelegatable(member, filter)).map((entry) => entry.agent.slug);
          expect(await slugsOf({ exclude_id: agents.open.id })).toEqual(['e-granted', 'e-own']);
          expect(
            await slugsOf({
              ids: [agents.own.id, agents.noAccess.id],
              slugs: ['e-open', 'e-draft', 'nobody'],
            }),
          ).toEqual(['e-open', 'e-own']);
          expect(await slugsOf({ slugs: ['e-open'], exclude_id: agents.open.id })).toEqual([]);
          expect(await slugsOf({ ids: [], slugs: [] })).toEqual([]);
          expect(
            await slugsOf({ slugs: ['e-no-access', 'e-not-delegatable', 'e-deleted', 'e-subagent'] }),
          ).toEqual([]);
        });

        it('gives an admin every published, delegatable, live expert', async () => {
          const { admin } = await experts();
          const found = await storage.agents.listDelegatable({ id: admin.id, role: 'admin' });
          expect(found.map((entry) => entry.agent.slug)).toEqual([
            'e-granted',
            'e-no-access',
            'e-open',
            'e-own',
          ]);
        });

        it('orders by slug and matches slugs exactly, never display names', async () => {
          const { alice, bob } = await seedWorld(storage);
          const member = { id: alice.id, role: 'member' } as const;
          const published = { visibility: 'public', status: 'published' } as const;
          await storage.agents.create(
            agentInput(alice.id, { slug: 'a-analyst', name: 'Analyst', ...published }),
          );
          await storage.agents.create(
            agentInput(bob.id, { slug: 'z-lookalike', name: 'ANALYST', ...published }),
          );
          const slugsOf = async (filter: Parameters<typeof storage.agents.listDelegatable>[1]) =>
            (await storage.agents.listDelegatable(member, filter)).map((entry) => entry.agent.slug);
          expect(await slugsOf({})).toEqual(['a-analyst', 'z-lookalike']);
          expect(await slugsOf({ slugs: ['Analyst', 'analyst', 'ANALYST', 'A-analyst'] })).toEqual([]);
          expect(await slugsOf({ slugs: ['a-analyst'] })).toEqual(['a-analyst']);
        });
      });
    });

    describe('access', () => {
      it('grants idempotently, keeping the first grant, and revokes', async () => {
        const { alice, bob } = await seedWorld(storage);
        const agent = await storage.agents.create(agentInput(bob.id, { slug: 'shop' }));
        expect(await storage.access.has(alice.id, agent.id)).toBe(false);
        const grant = await storage.access.grant(alice.id, agent.id, 'purchased');
        expect(grant).toMatchObject({ user_id: alice.id, agent_id: agent.id, source: 'purchased' });
        const again = await storage.access.grant(alice.id, agent.id, 'granted');
        expect(again).toEqual(grant);
        expect(await storage.access.has(alice.id, agent.id)).toBe(true);
        await storage.access.grant(bob.id, agent.id, 'created');
        expect((await storage.access.listForAgent(agent.id)).map((g) => g.user_id).sort()).toEqual(
          [alice.id, bob.id].sort(),
        );
        expect(await storage.access.revoke(alice.id, agent.id)).toBe(true);
        expect(await storage.access.revoke(alice.id, agent.id)).toBe(false);
        expect(await storage.access.has(alice.id, agent.id)).toBe(false);
      });
    });

    describe('projects', () => {
      it('creates, reads and lists projects per user', async () => {
        const alice = await storage.users.create({ name: 'alice', role: 'member' });
        const bob = await storage.users.create({ name: 'bob', role: 'member' });
        const one = await storage.projects.create({ user_id: alice.id, name: 'one', workdir: '/data/one' });
        await storage.projects.create({ user_id: bob.id, name: 'two', workdir: '/data/two' });
        expect(one).toMatchObject({ user_id: alice.id, name: 'one', workdir: '/data/one' });
        expect(one.id).toMatch(/^prj_/);
        expect(await storage.projects.get(one.id)).toEqual(one);
        expect(await storage.projects.get('prj_missing')).toBeUndefined();
        expect(await storage.projects.listForUser(alice.id)).toEqual([one]);
      });

      it("finds a user's oldest project of a name, never another user's", async () => {
        const alice = await storage.users.create({ name: 'alice', role: 'member' });
        const bob = await storage.users.create({ name: 'bob', role: 'member' });
        await storage.projects.create({ user_id: bob.id, name: 'Default', workdir: '/data/b' });
        expect(await storage.projects.oldestNamed(alice.id, 'Default')).toBeUndefined();
        await storage.projects.create({ user_id: alice.id, name: 'Other', workdir: '/data/o' });
        const first = await storage.projects.create({
          user_id: alice.id,
          name: 'Default',
          workdir: '/data/1',
        });
        // A later millisecond: ids are random, so only created_at orders the two.
        await delay(5);
        await storage.projects.create({ user_id: alice.id, name: 'Default', workdir: '/data/2' });
        expect(await storage.projects.oldestNamed(alice.id, 'Default')).toEqual(first);
        expect(await storage.projects.oldestNamed(alice.id, 'default')).toBeUndefined();
      });
    });

    describe('conversations', () => {
      it('creates, reads by id and thread, and updates', async () => {
        const { conversation } = await seedWorld(storage);
        expect(conversation.id).toMatch(/^cnv_/);
        expect(await storage.conversations.get(conversation.id)).toEqual(conversation);
        expect(await storage.conversations.getByThread(conversation.thread_id)).toEqual(conversation);
        expect(await storage.conversations.getByThread('thr_missing')).toBeUndefined();
        await delay(5);
        const metadata = { parent_conversation_id: 'cnv_x', depth: 1, tags: ['a'] };
        const updated = await storage.conversations.update(conversation.id, {
          title: 'Renamed',
          status: 'archived',
          metadata,
        });
        expect(updated).toEqual({
          ...conversation,
          title: 'Renamed',
          status: 'archived',
          metadata,
          updated_at: updated.updated_at,
        });
        expect(updated.updated_at > conversation.updated_at).toBe(true);
        await expectCode(
          storage.conversations.update('cnv_missing', { title: 'x' }),
          'conversation_not_found',
        );
      });

      it('creates a conversation under an id its caller made, for a write started with it', async () => {
        const { conversation } = await seedWorld(storage);
        const id = newId('cnv');
        const made = await storage.conversations.create(
          { ...conversation, thread_id: newId('thr'), title: 'Named ahead' },
          id,
        );
        expect(made.id).toBe(id);
        expect(await storage.conversations.get(id)).toEqual(made);
        // Without one, the repository makes its own (a spread record's id is not taken).
        const own = await storage.conversations.create({ ...conversation, thread_id: newId('thr') });
        expect(own.id).not.toBe(conversation.id);
      });

      it('reads a conversation with its agent, owner and project in one statement, as get returns each', async () => {
        const { conversation } = await seedWorld(storage);
        const agent = await storage.agents.get(conversation.agent_id);
        const owner = await storage.users.get(conversation.user_id);
        const project = await storage.projects.get(conversation.project_id);
        expect(project).toBeDefined();
        expect(await storage.conversations.getWithParts(conversation.id)).toEqual({
          conversation,
          agent,
          owner,
          project,
        });
        // A soft-deleted agent comes back as agents.get returns it: the caller decides what it may do.
        await storage.agents.softDelete(conversation.agent_id, '2030-01-01T00:00:00.000Z');
        expect((await storage.conversations.getWithParts(conversation.id))?.agent).toEqual(
          await storage.agents.get(conversation.agent_id),
        );
        expect(await storage.conversations.getWithParts('cnv_missing')).toBeUndefined();
      });

      it('lists a user conversations by status, most recently updated first', async () => {
        const { alice, conversation } = await seedWorld(storage);
        const base = { ...conversation, metadata: {} };
        await delay(5);
        const child = await storage.conversations.create({
          ...base,
          thread_id: newId('thr'),
          status: 'subagent',
          title: 'SubAgent: x',
        });
        await delay(5);
        const second = await storage.conversations.create({
          ...base,
          thread_id: newId('thr'),
          title: 'Second',
        });
        await delay(5);
        await storage.conversations.update(conversation.id, { title: 'Touched' });
        const active = await storage.conversations.listForUser(alice.id, ['active']);
        expect(active.map((c) => c.id)).toEqual([conversation.id, second.id]);
        const both = await storage.conversations.listForUser(alice.id, ['active', 'subagent']);
        expect(both.map((c) => c.id)).toEqual([conversation.id, second.id, child.id]);
        expect(await storage.conversations.listForUser(alice.id, [])).toEqual([]);
      });

      it('allows one conversation per thread', async () => {
        const { conversation } = await seedWorld(storage);
        const error = await expectCode(storage.conversations.create({ ...conversation }), 'internal');
        expect(error.details?.constraint).toBe('conversations_thread_uq');
      });
    });

    describe('messages', () => {
      it('appends checkpoints with consecutive sequence numbers and their step numbers', async () => {
        const { conversation } = await seedWorld(storage);
        const run = await storage.runs.insert(runInput(conversation));
        const first = await storage.messages.append(conversation.thread_id, run.id, 0, [
          { role: 'user', content: 'hello' },
        ]);
        const second = await storage.messages.append(conversation.thread_id, run.id, 1, [
          {
            role: 'assistant',
            content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'ls', input: { path: '.' } }],
          },
          {
            role: 'tool',
            content: [
              { type: 'tool-result', toolCallId: 'c1', toolName: 'ls', output: { type: 'text', value: 'a' } },
            ],
          },
          { role: 'assistant', content: 'done' },
        ]);
        expect(first.map((m) => m.seq)).toEqual([1]);
        expect(second.map((m) => [m.seq, m.step])).toEqual([
          [2, 1],
          [3, 1],
          [4, 1],
        ]);
        expect(second[0]).toMatchObject({ thread_id: conversation.thread_id, run_id: run.id });
        expect(await storage.messages.list(conversation.thread_id)).toEqual([...first, ...second]);
        expect(await storage.messages.append(conversation.thread_id, run.id, 2, [])).toEqual([]);
        const unowned = await storage.messages.append(conversation.thread_id, null, 0, [
          { role: 'system', content: 's' },
        ]);
        expect(unowned[0]).toMatchObject({ seq: 5, run_id: null, step: 0 });
        expect(await storage.messages.list('thr_missing')).toEqual([]);
      });

      it("appends several steps' messages in one write, in order, each with its step", async () => {
        const { conversation } = await seedWorld(storage);
        const run = await storage.runs.insert(runInput(conversation));
        const written = await storage.messages.appendSteps(conversation.thread_id, run.id, [
          { step: 1, messages: [{ role: 'assistant', content: 'one' }] },
          { step: 2, messages: [] },
          {
            step: 3,
            messages: [
              { role: 'assistant', content: 'three' },
              { role: 'assistant', content: 'three, again' },
            ],
          },
        ]);
        expect(written.map((m) => [m.seq, m.step, m.message.content])).toEqual([
          [1, 1, 'one'],
          [2, 3, 'three'],
          [3, 3, 'three, again'],
        ]);
        expect(await storage.messages.list(conversation.thread_id)).toEqual(written);
        expect(await storage.messages.appendSteps(conversation.thread_id, run.id, [])).toEqual([]);
      });

      it('appends to several threads in one write, each numbered on from its own last message', async () => {
        const { conversation } = await seedWorld(storage);
        const other = await storage.conversations.create({
          user_id: conversation.user_id,
          agent_id: conversation.agent_id,
          thread_id: newId('thr'),
          project_id: conversation.project_id,
          status: 'active',
          title: 'Second chat',
          metadata: {},
        });
        const run = await storage.runs.insert(runInput(conversation));
        await storage.messages.append(conversation.thread_id, run.id, 0, [
          { role: 'user', content: 'first' },
        ]);
        const [mine = [], empty = [], theirs = []] = await storage.messages.appendBatches([
          {
            threadId: conversation.thread_id,
            runId: run.id,
            parts: [{ step: 1, messages: [{ role: 'assistant', content: 'a' }] }],
          },
          { threadId: newId('thr'), runId: null, parts: [] },
          {
            threadId: other.thread_id,
            runId: null,
            parts: [
              {
                step: 0,
                messages: [
                  { role: 'user', content: 'b' },
                  { role: 'user', content: 'c' },
                ],
              },
            ],
          },
        ]);
        expect(mine.map((m) => [m.thread_id, m.seq, m.step, m.run_id])).toEqual([
          [conversation.thread_id, 2, 1, run.id],
        ]);
        expect(empty).toEqual([]);
        expect(theirs.map((m) => [m.seq, m.message.content])).toEqual([
          [1, 'b'],
          [2, 'c'],
        ]);
        expect(await storage.messages.list(other.thread_id)).toEqual(theirs);
        const twice = {
          threadId: other.thread_id,
          runId: null,
          parts: [{ step: 1, messages: [{ role: 'user' as const, content: 'd' }] }],
        };
        await expect(storage.messages.appendBatches([twice, twice])).rejects.toThrow(
          'each thread at most once',
        );
        expect(await storage.messages.list(other.thread_id)).toHaveLength(2);
      });

      it('keeps checkpoints of concurrent appends contiguous and gapless', async () => {
        const { conversation } = await seedWorld(storage);
        const checkpoints = await Promise.all(
          Array.from({ length: 20 }, (_, step) =>
            storage.messages.append(conversation.thread_id, null, step, [
              { role: 'user', content: `q${step}` },
              { role: 'assistant', content: `a${step}` },
            ]),
          ),
        );
        for (const checkpoint of checkpoints) expect(checkpoint[1]!.seq).toBe(checkpoint[0]!.seq + 1);
        const seqs = (await storage.messages.list(conversation.thread_id)).map((m) => m.seq);
        expect(seqs).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      });
    });

    describe('subagent threads', () => {
      it('creates and finds relations by id, child thread and parent', async () => {
        const { alice, conversation } = await seedWorld(storage);
        const parentRun = await storage.runs.insert(runInput(conversation));
        const child = await storage.conversations.create({
          ...conversation,
          thread_id: newId('thr'),
          status: 'subagent',
          title: 'SubAgent: researcher',
        });
        const relation = await storage.subagentThreads.create({
          user_id: alice.id,
          parent_conversation_id: conversation.id,
          child_conversation_id: child.id,
          child_thread_id: child.thread_id,
          subagent_slug: 'researcher',
          created_by_run_id: parentRun.id,
        });
        expect(relation.id).toMatch(/^rel_/);
        expect(relation).toMatchObject({ child_thread_id: child.thread_id, subagent_slug: 'researcher' });
        expect(await storage.subagentThreads.get(relation.id)).toEqual(relation);
        expect(await storage.subagentThreads.getByChildThread(child.thread_id)).toEqual(relation);
        expect(await storage.subagentThreads.getMany([relation.id, 'rel_missing', relation.id])).toEqual([
          relation,
        ]);
        expect(await storage.subagentThreads.getMany([])).toEqual([]);
        expect(await storage.subagentThreads.getByChildThread('thr_missing')).toBeUndefined();
        expect(await storage.subagentThreads.listForParent(conversation.id)).toEqual([relation]);
        const duplicate = await expectCode(storage.subagentThreads.create({ ...relation }), 'internal');
        expect(['subagent_threads_child_thread_uq', 'subagent_threads_child_conversation_uq']).toContain(
          duplicate.details?.constraint,
        );
      });
    });

    describe('runs', () => {
      it('takes a run’s steering inbox once, in the order it was sent, and only that run’s', async () => {
        const { conversation } = await seedWorld(storage);
        const run = await storage.runs.insert(runInput(conversation));
        const other = await storage.runs.insert(runInput(conversation, { thread_id: newId('thr') }));
        expect(await storage.inbox.take(run.id)).toEqual([]);
        await storage.inbox.push(run.id, 'first');
        await storage.inbox.push(other.id, 'for the other run');
        await storage.inbox.push(run.id, 'second');
        expect(await storage.inbox.take(run.id)).toEqual(['first', 'second']);
        expect(await storage.inbox.take(run.id)).toEqual([]);
        await storage.inbox.push(run.id, 'third');
        expect(await storage.inbox.take(run.id)).toEqual(['third']);
        expect(await storage.inbox.take(other.id)).toEqual(['for the other run']);
      });

      it('reads many runs at once: the ones that exist, each once, any number of ids', async () => {
        const { conversation } = await seedWorld(storage);
        const runs = [];
        for (let i = 0; i < 3; i++) {
          const run = await storage.runs.insert(runInput(conversation, { thread_id: newId('thr') }));
          runs.push(run);
        }
        const byId = (list: { id: string }[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));
        const [first, second] = runs as [Run, Run, Run];
        expect(byId(await storage.runs.getMany([second.id, 'run_missing', first.id, second.id]))).toEqual(
          byId([first, second]),
        );
        expect(await storage.runs.getMany([])).toEqual([]);
        // More ids than one statement binds: still every run, once.
        const many = [
          ...Array.from({ length: 1_200 }, (_, i) => `run_missing_${i}`),
          ...runs.map((run) => run.id),
        ];
        expect(byId(await storage.runs.getMany(many))).toEqual(byId(runs));
      });

      it('inserts a pending run and reads it by id, request id and thread', async () => {
        const { conversation } = await seedWorld(storage);
        const input = runInput(conversation);
        const run = await storage.runs.insert(input);
        expect(run).toEqual({
          ...input,
          status: 'pending',
          output: null,
          error: null,
          usage: null,
          worker_id: null,
          lease_expires_at: null,
          attempt: 0,
          created_at: run.created_at,
          started_at: null,
          finished_at: null,
          updated_at: run.created_at,
          forked_from: null,
        });
        expect(await storage.runs.get(run.id)).toEqual(run);
        expect(await storage.runs.getByRequestId(input.user_id, input.request_id)).toEqual(run);
        expect(await storage.runs.getActiveForThread(conversation.thread_id)).toEqual(run);
        expect(await storage.runs.get(newRunId())).toBeUndefined();
        expect(await storage.runs.getByRequestId(input.user_id, 'req:missing')).toBeUndefined();
        expect(await storage.runs.getActiveForThread('thr_missing')).toBeUndefined();
      });

      it('refuses a second active run on a thread with run_busy', async () => {
        const { conversation } = await seedWorld(storage);
        const first = await storage.runs.insert(runInput(conversation));
        const error = await expectCode(storage.runs.insert(runInput(conversation)), 'run_busy');
        expect(error.details?.thread_id).toBe(conversation.thread_id);
        expect((await storage.runs.getActiveForThread(conversation.thread_id))?.id).toBe(first.id);
      });

      it('refuses a duplicate request id, even on a busy thread, with request_id_conflict', async () => {
        const { conversation } = await seedWorld(storage);
        const first = await storage.runs.insert(runInput(conversation, { request_id: 'req:same' }));
        await expectCode(
          storage.runs.insert(runInput(conversation, { request_id: 'req:same' })),
          'request_id_conflict',
        );
        const elsewhere = runInput(conversation, { request_id: 'req:same', thread_id: newId('thr') });
        await expectCode(storage.runs.insert(elsewhere), 'request_id_conflict');
        expect((await storage.runs.getByRequestId(first.user_id, 'req:same'))?.id).toBe(first.id);
      });

      it('keys request ids per user: another user may use the same id and never sees the first run', async () => {
        const { alice, bob, conversation } = await seedWorld(storage);
        const bobsAgent = await storage.agents.create(agentInput(bob.id, { slug: 'bobs-assistant' }));
        const bobsProject = await storage.projects.create({
          user_id: bob.id,
          name: 'default',
          workdir: '/tmp/bob',
        });
        const bobsConversation = await storage.conversations.create({
          user_id: bob.id,
          agent_id: bobsAgent.id,
          thread_id: newId('thr'),
          project_id: bobsProject.id,
          status: 'active',
          title: 'Bob chat',
          metadata: {},
        });
        const alices = await storage.runs.insert(runInput(conversation, { request_id: 'req:shared' }));
        const bobs = await storage.runs.insert(runInput(bobsConversation, { request_id: 'req:shared' }));
        expect(bobs.id).not.toBe(alices.id);
        expect((await storage.runs.getByRequestId(alice.id, 'req:shared'))?.id).toBe(alices.id);
        expect((await storage.runs.getByRequestId(bob.id, 'req:shared'))?.id).toBe(bobs.id);
        expect(await storage.runs.getByRequestId(bob.id, 'req:missing')).toBeUndefined();
        // Still one run per (user, request id).
        await expectCode(
          storage.runs.insert(
            runInput(bobsConversation, { request_id: 'req:shared', thread_id: newId('thr') }),
          ),
          'request_id_conflict',
        );
      });

      it('lets exactly one of 50 concurrent inserts on one thread win', async () => {
        const { conversation } = await seedWorld(storage);
        const { ok, errors } = await settleAll(
          Array.from({ length: 50 }, () => storage.runs.insert(runInput(conversation))),
        );
        expect(ok).toHaveLength(1);
        expect(codesOf(errors)).toEqual(Array.from({ length: 49 }, () => 'run_busy'));
        expect((await storage.runs.getActiveForThread(conversation.thread_id))?.id).toBe(ok[0]!.id);
      });

      it('lets exactly one of 50 concurrent inserts with one request id win', async () => {
        const { conversation } = await seedWorld(storage);
        const { ok, errors } = await settleAll(
          Array.from({ length: 50 }, (_, i) =>
            storage.runs.insert(
              runInput(conversation, { request_id: 'req:replayed', thread_id: `thr_replay_${i}` }),
            ),
          ),
        );
        expect(ok).toHaveLength(1);
        expect(codesOf(errors)).toEqual(Array.from({ length: 49 }, () => 'request_id_conflict'));
        expect((await storage.runs.getByRequestId(conversation.user_id, 'req:replayed'))?.id).toBe(ok[0]!.id);
      });

      it('reports replays on one busy thread as request_id_conflict under concurrency', async () => {
        const { conversation } = await seedWorld(storage);
        const { ok, errors } = await settleAll(
          Array.from({ length: 50 }, () =>
            storage.runs.insert(runInput(conversation, { request_id: 'req:same-thread' })),
          ),
        );
        expect(ok).toHaveLength(1);
        expect(codesOf(errors)).toEqual(Array.from({ length: 49 }, () => 'request_id_conflict'));
      });

      it('frees the thread once the active run is terminal', async () => {
        const { conversation } = await seedWorld(storage);
        for (const terminal of ['completed', 'failed', 'cancelled', 'interrupted'] as const) {
          const run = await storage.runs.insert(runInput(conversation));
          expect(await walkRunTo(storage, run, terminal)).toMatchObject({
            status: terminal,
          });
          expect(await storage.runs.getActiveForThread(conversation.thread_id)).toBeUndefined();
        }
        const next = await storage.runs.insert(runInput(conversation));
        expect((await storage.runs.getActiveForThread(conversation.thread_id))?.id).toBe(next.id);
        expect(await storage.runs.listByConversation(conversation.id)).toHaveLength(5);
      });

      it('refuses to reopen a finished run, so it cannot take back a thread another run now holds', async () => {
        const { conversation } = await seedWorld(storage);
        const old = await storage.runs.insert(runInput(conversation));
        await walkRunTo(storage, old, 'interrupted');
        await storage.runs.insert(runInput(conversation));
        await expectCode(
          storage.runs.update(old.id, { status: ['interrupted'] }, { status: 'pending' }),
          'invalid_transition',
        );
        expect((await storage.runs.get(old.id))?.status).toBe('interrupted');
      });

      describe('compare-and-set update', () => {
        async function pendingRun(): Promise<Run> {
          const { conversation } = await seedWorld(storage);
          return storage.runs.insert(runInput(conversation));
        }

        it('applies the patch, round-trips JSON fields and refreshes updated_at', async () => {
          const run = await pendingRun();
          await delay(5);
          const started = await storage.runs.update(
            run.id,
            { status: ['pending'], worker_id: null },
            {
              status: 'running',
              worker_id: 'wrk_1',
              lease_expires_at: FAR_FUTURE,
              attempt: 1,
              started_at: run.created_at,
            },
          );
          expect(started).toEqual({
            ...run,
            status: 'running',
            worker_id: 'wrk_1',
            lease_expires_at: FAR_FUTURE,
            attempt: 1,
            started_at: run.created_at,
            updated_at: started?.updated_at,
          });
          expect(started!.updated_at > run.updated_at).toBe(true);
          const usage = {
            input_tokens: 10,
            output_tokens: 5,
            total_tokens: 15,
            model_calls: 2,
            aborted_model_calls: 1,
          };
          const failed = await storage.runs.update(
            run.id,
            { status: ['running'], worker_id: 'wrk_1' },
            {
              status: 'failed',
              error: { type: 'model_call_failed', message: 'boom' },
              usage,
              output: 'partial',
              worker_id: null,
              lease_expires_at: null,
            },
          );
          expect(failed).toMatchObject({
            status: 'failed',
            error: { type: 'model_call_failed', message: 'boom' },
            usage,
            output: 'partial',
            worker_id: null,
            lease_expires_at: null,
          });
          expect(await storage.runs.get(run.id)).toEqual(failed);
          const cleared = await storage.runs.update(run.id, {}, { error: null, usage: null, output: null });
          expect(cleared).toMatchObject({ error: null, usage: null, output: null, status: 'failed' });
        });

        it('refreshes updated_at even with an empty patch', async () => {
          const run = await pendingRun();
          await delay(5);
          const touched = await storage.runs.update(run.id, {}, {});
          expect({ ...touched, updated_at: run.updated_at }).toEqual(run);
          expect(touched!.updated_at > run.updated_at).toBe(true);
        });

        it('does nothing when the status guard fails', async () => {
          const run = await pendingRun();
          expect(
            await storage.runs.update(
              run.id,
              { status: ['running', 'cancel_requested'] },
              { status: 'failed' },
            ),
          ).toBeUndefined();
          expect(await storage.runs.update(run.id, { status: [] }, { status: 'completed' })).toBeUndefined();
          expect(await storage.runs.get(run.id)).toEqual(run);
          expect(
            await storage.runs.update(newRunId(), { status: ['running'] }, { status: 'completed' }),
          ).toBeUndefined();
        });

        it('guards on the owning worker, null meaning unowned', async () => {
          const run = await pendingRun();
          const claim = () =>
            storage.runs.update(
              run.id,
              { status: ['pending'], worker_id: null },
              { status: 'running', worker_id: 'wrk_a' },
            );
          const results = await Promise.all([claim(), claim(), claim()]);
          expect(results.filter((result) => result !== undefined)).toHaveLength(1);
          expect(await storage.runs.update(run.id, { worker_id: null }, { attempt: 9 })).toBeUndefined();
          expect(await storage.runs.update(run.id, { worker_id: 'wrk_b' }, { attempt: 9 })).toBeUndefined();
          expect(await storage.runs.update(run.id, { worker_id: 'wrk_a' }, { attempt: 2 })).toMatchObject({
            attempt: 2,
          });
        });

        it('claims a pending unowned run once: running, leased, attempt counted, first start kept', async () => {
          const run = await pendingRun();
          const first = '2030-01-01T00:00:00.000Z';
          const claims = await Promise.all([
            storage.runs.claim(run.id, 'wrk_a', FAR_FUTURE, first),
            storage.runs.claim(run.id, 'wrk_b', FAR_FUTURE, first),
          ]);
          const won = claims.filter((claimed) => claimed !== undefined);
          expect(won).toHaveLength(1);
          expect(won[0]).toMatchObject({
            status: 'running',
            lease_expires_at: FAR_FUTURE,
            attempt: 1,
            started_at: first,
          });
          // Handed back (a lost lease, a shutdown): the next claim counts a second attempt, same first start.
          await storage.runs.update(
            run.id,
            { status: ['running'] },
            { status: 'pending', worker_id: null, lease_expires_at: null },
          );
          expect(
            await storage.runs.claim(run.id, 'wrk_c', FAR_FUTURE, '2030-01-01T00:05:00.000Z'),
          ).toMatchObject({
            worker_id: 'wrk_c',
            attempt: 2,
            started_at: first,
          });
          expect(await storage.runs.claim(run.id, 'wrk_d', FAR_FUTURE, first)).toBeUndefined();
          const ended = await walkRunTo(storage, run, 'cancelled');
          expect(await storage.runs.claim(ended.id, 'wrk_a', FAR_FUTURE, first)).toBeUndefined();
          expect(await storage.runs.claim('run_missing', 'wrk_a', FAR_FUTURE, first)).toBeUndefined();
        });

        it('inserts a run claimed, as a claim of it would leave it', async () => {
          const { conversation } = await seedWorld(storage);
          const now = '2030-01-01T00:00:00.000Z';
          const claimed = await storage.runs.insert(runInput(conversation), ['wrk_a', FAR_FUTURE, now]);
          const other = await storage.runs.insert(runInput(conversation, { thread_id: newId('thr') }));
          const byClaim = await storage.runs.claim(other.id, 'wrk_a', FAR_FUTURE, now);
          const fields = ['status', 'worker_id', 'lease_expires_at', 'attempt', 'started_at'] as const;
          const pick = (run: Run | undefined) => fields.map((field) => run?.[field]);
          expect(pick(claimed)).toEqual(pick(byClaim));
          expect(await storage.runs.get(claimed.id)).toEqual(claimed);
          // It is held like any claimed run: a second claim finds nothing to take.
          expect(await storage.runs.claim(claimed.id, 'wrk_b', FAR_FUTURE, now)).toBeUndefined();
        });

        it('guards on a live lease', async () => {
          const run = await pendingRun();
          const lease = '2030-01-01T00:00:10.000Z';
          await walkRunTo(storage, run, 'running', { worker_id: 'wrk_a', lease_expires_at: lease });
          const renew = (at: string) =>
            storage.runs.update(
              run.id,
              { worker_id: 'wrk_a', lease_live_at: at },
              { lease_expires_at: FAR_FUTURE },
            );
          expect(await renew('2030-01-01T00:00:10.000Z')).toBeUndefined();
          expect(await renew('2030-01-01T00:00:11.000Z')).toBeUndefined();
          expect(await renew('2030-01-01T00:00:09.999Z')).toMatchObject({ lease_expires_at: FAR_FUTURE });
          await storage.runs.update(run.id, {}, { lease_expires_at: null });
          expect(await renew(FAR_PAST)).toBeUndefined();
        });

        it('takes over only a lease that has ended (a renewal in between wins)', async () => {
          const run = await pendingRun();
          const lease = '2030-01-01T00:00:10.000Z';
          await walkRunTo(storage, run, 'running', { worker_id: 'wrk_a', lease_expires_at: lease });
          const takeOver = (at: string) =>
            storage.runs.update(
              run.id,
              { status: ['running'], worker_id: 'wrk_a', lease_expired_at: at },
              { worker_id: null, lease_expires_at: null },
            );
          expect(await takeOver('2030-01-01T00:00:09.999Z')).toBeUndefined();
          expect(await takeOver('2030-01-01T00:00:10.000Z')).toMatchObject({ worker_id: null });
        });
      });

      it('lists children, a whole tree and a conversation newest first', async () => {
        const { conversation } = await seedWorld(storage);
        const root = await storage.runs.insert(runInput(conversation));
        const child = (createdBy: Run, depth: number) =>
          storage.runs.insert(childRunInput(conversation, root, createdBy, depth));
        await delay(3);
        const a = await child(root, 1);
        await delay(3);
        const b = await child(root, 1);
        await delay(3);
        const grandchild = await child(a, 2);
        expect((await storage.runs.listChildren(root.id)).map((r) => r.id)).toEqual([a.id, b.id]);
        expect((await storage.runs.listChildren(a.id)).map((r) => r.id)).toEqual([grandchild.id]);
        expect(await storage.runs.listChildren(grandchild.id)).toEqual([]);
        expect((await storage.runs.listByRoot(root.id)).map((r) => r.id)).toEqual([
          root.id,
          a.id,
          b.id,
          grandchild.id,
        ]);
        expect((await storage.runs.listByConversation(conversation.id)).map((r) => r.id)).toEqual([
          grandchild.id,
          b.id,
          a.id,
          root.id,
        ]);
        expect(await storage.runs.listByConversation('cnv_missing')).toEqual([]);
      });

      it("lists the children of every turn of a conversation in one read, not their children's", async () => {
        const { conversation } = await seedWorld(storage);
        const elsewhere = await storage.conversations.create({ ...conversation, thread_id: newId('thr') });
        const childIn = (home: Conversation, root: Run, createdBy: Run, depth: number) =>
          storage.runs.insert({
            ...childRunInput(home, root, createdBy, depth),
            conversation_id: home.id,
          });
        const first = await storage.runs.insert(runInput(conversation));
        const a = await childIn(elsewhere, first, first, 1);
        await delay(3);
        const grandchild = await childIn(elsewhere, first, a, 2);
        await walkRunTo(storage, first, 'completed');
        await delay(3);
        const second = await storage.runs.insert(runInput(conversation));
        const b = await childIn(elsewhere, second, second, 1);
        // Another conversation's turn and child are not this one's.
        const other = await storage.runs.insert(runInput(elsewhere, { thread_id: newId('thr') }));
        await childIn(elsewhere, other, other, 1);
        const listed = await storage.runs.listChildrenInConversation(conversation.id);
        expect(listed.map((run) => run.id)).toEqual([a.id, b.id]);
        expect(listed[0]).toEqual(await storage.runs.get(a.id));
        expect((await storage.runs.listChildrenInConversation(elsewhere.id)).map((run) => run.id)).toContain(
          grandchild.id,
        );
        expect(await storage.runs.listChildrenInConversation('cnv_missing')).toEqual([]);
      });

      it("reads what a turn's end closes: its own active runs below, then the previous turn's", async () => {
        const { conversation } = await seedWorld(storage);
        // Children run in conversations of their own, as subagents and delegations do.
        const elsewhere = await storage.conversations.create({ ...conversation, thread_id: newId('thr') });
        const below = async (root: Run, createdBy: Run, depth: number, status: RunStatus = 'pending') => {
          const run = await storage.runs.insert(childRunInput(elsewhere, root, createdBy, depth));
          if (status !== 'pending') await walkRunTo(storage, run, status);
          await delay(3);
          return run;
        };
        const first = await storage.runs.insert(runInput(conversation));
        // The first turn kept a background child alive (with a child of its own), and one ended.
        const kept = await below(first, first, 1, 'running');
        const keptChild = await below(first, kept, 2);
        await below(first, first, 1, 'completed');
        await walkRunTo(storage, first, 'completed');
        await delay(3);
        const second = await storage.runs.insert(runInput(conversation));
        const done = await below(second, second, 1, 'completed');
        const underDone = await below(second, done, 2, 'input_required');
        const own = await below(second, second, 1);
        const ids = async (run: Run, options: { own: boolean }) =>
          (await storage.runs.listActiveBelowTurn(run, options)).map((r) => r.id);
        expect(await ids(second, { own: true })).toEqual([own.id, underDone.id, kept.id, keptChild.id]);
        expect(await ids(second, { own: false })).toEqual([kept.id, keptChild.id]);
        // No run before the first: only its own.
        expect(await ids(first, { own: true })).toEqual([kept.id, keptChild.id]);
        expect(await ids(first, { own: false })).toEqual([]);
        // "Before" is the conversation's order: created_at, ties broken by id.
        const twin = { ...first, id: `${first.id}z` };
        expect(await ids(twin, { own: false })).toEqual([kept.id, keptChild.id]);
        const earlierTwin = { ...first, id: `${first.id.slice(0, -1)}` };
        expect(await ids(earlierTwin, { own: false })).toEqual([]);
      });

      it('lists the active runs below a run at any depth, through finished ones, parents first', async () => {
        const { conversation } = await seedWorld(storage);
        const root = await storage.runs.insert(runInput(conversation));
        const below = async (createdBy: Run, depth: number, status: RunStatus) => {
          const run = await storage.runs.insert(childRunInput(conversation, root, createdBy, depth));
          if (status !== 'pending') await walkRunTo(storage, run, status);
          await delay(3);
          return run;
        };
        const done = await below(root, 1, 'completed');
        const running = await below(root, 1, 'running');
        const underDone = await below(done, 2, 'pending');
        await below(running, 2, 'cancelled');
        const deepest = await below(underDone, 3, 'input_required');
        const cancelling = await below(underDone, 3, 'cancel_requested');
        const ids = async (run: Run) => (await storage.runs.listActiveDescendants(run.id)).map((r) => r.id);
        expect(await ids(root)).toEqual([running.id, underDone.id, deepest.id, cancelling.id]);
        expect(await ids(done)).toEqual([underDone.id, deepest.id, cancelling.id]);
        expect(await ids(deepest)).toEqual([]);
        expect(await storage.runs.listActiveDescendants('run_missing')).toEqual([]);
      });

      it('lists leased runs whose lease expired, and unowned running ones', async () => {
        const { conversation } = await seedWorld(storage);
        const make = async (status: RunStatus, lease: string | null) => {
          const run = await storage.runs.insert(runInput(conversation, { thread_id: newId('thr') }));
          await walkRunTo(storage, run, status, { lease_expires_at: lease, worker_id: lease && 'wrk_x' });
          return run.id;
        };
        const now = '2030-06-01T00:00:00.000Z';
        const expiredRunning = await make('running', '2030-05-01T00:00:00.000Z');
        const expiredCancelling = await make('cancel_requested', '2030-05-31T23:59:59.999Z');
        const unowned = await make('running', null);
        await make('running', '2030-06-01T00:00:00.001Z');
        await make('running', now);
        await make('pending', '2030-05-01T00:00:00.000Z');
        await make('input_required', '2030-05-01T00:00:00.000Z');
        await make('completed', '2030-05-01T00:00:00.000Z');
        const expired = (await storage.runs.listExpiredLeases(now, 10)).map((r) => r.id);
        expect(expired).toEqual([unowned, expiredRunning, expiredCancelling]);
        expect(await storage.runs.listExpiredLeases(now, 2)).toHaveLength(2);
      });

      it('lists pending runs created before a time', async () => {
        const { conversation } = await seedWorld(storage);
        const first = await storage.runs.insert(runInput(conversation, { thread_id: newId('thr') }));
        await delay(3);
        const second = await storage.runs.insert(runInput(conversation, { thread_id: newId('thr') }));
        const started = await storage.runs.insert(runInput(conversation, { thread_id: newId('thr') }));
        await walkRunTo(storage, started, 'running');
        expect((await storage.runs.listStalePending(FAR_FUTURE, 10)).map((r) => r.id)).toEqual([
          first.id,
          second.id,
        ]);
        expect((await storage.runs.listStalePending(FAR_FUTURE, 1)).map((r) => r.id)).toEqual([first.id]);
        expect(await storage.runs.listStalePending(first.created_at, 10)).toEqual([]);
        expect(await storage.runs.listStalePending(FAR_PAST, 10)).toEqual([]);
      });

      it('reads a run with the active children of it and of its user in one statement', async () => {
        const { conversation, bob } = await seedWorld(storage);
        const root = await storage.runs.insert(runInput(conversation));
        const otherRoot = await storage.runs.insert(runInput(conversation, { thread_id: newId('thr') }));
        const spawn = (parent: Run) =>
          storage.runs.insert(
            runInput(conversation, {
              thread_id: newId('thr'),
              created_by_run_id: parent.id,
              root_run_id: parent.id,
            }),
          );
        const [a, , c] = [await spawn(root), await spawn(root), await spawn(root)];
        await spawn(otherRoot);
        await walkRunTo(storage, a, 'running');
        await walkRunTo(storage, c, 'completed');
        const counts = async (run: Run, userId: string) => {
          const read = await storage.runs.getWithActiveChildren(run.id, userId);
          expect(read?.run).toEqual(await storage.runs.get(run.id));
          return read?.activeChildren;
        };
        // Roots are no one's children: the user's quota counts the three active children only.
        expect(await counts(root, conversation.user_id)).toEqual({ ofRun: 2, ofUser: 3 });
        expect(await counts(otherRoot, bob.id)).toEqual({ ofRun: 1, ofUser: 0 });
        expect(await counts(a, conversation.user_id)).toEqual({ ofRun: 0, ofUser: 3 });
        expect(await storage.runs.getWithActiveChildren('run_missing', conversation.user_id)).toBeUndefined();
      });

      it("reads with it its conversation and project, the user, and when asked an agent and a thread's relation", async () => {
        const { conversation, alice, bob } = await seedWorld(storage);
        const root = await storage.runs.insert(runInput(conversation));
        const helper = await storage.agents.create(
          agentInput(alice.id, { slug: 'helper', is_subagent: true }),
        );
        const childThread = newId('thr');
        const childConversation = await storage.conversations.create({
          user_id: alice.id,
          agent_id: helper.id,
          thread_id: childThread,
          project_id: conversation.project_id,
          status: 'subagent',
          title: 'SubAgent: helper',
          metadata: {},
        });
        const relation = await storage.subagentThreads.create({
          user_id: alice.id,
          parent_conversation_id: conversation.id,
          child_conversation_id: childConversation.id,
          child_thread_id: childThread,
          subagent_slug: 'helper',
          created_by_run_id: root.id,
        });

        const plain = await storage.runs.getWithActiveChildren(root.id, alice.id);
        expect(plain?.conversation).toEqual(await storage.conversations.get(conversation.id));
        expect(plain?.project).toEqual(await storage.projects.get(conversation.project_id));
        expect(plain?.user).toEqual(await storage.users.get(alice.id));
        expect(plain && 'agent' in plain).toBe(false);
        expect(plain && 'relation' in plain).toBe(false);

        const asked = await storage.runs.getWithActiveChildren(root.id, bob.id, {
          agentId: helper.id,
          childThreadId: childThread,
        });
        expect(asked?.user).toEqual(await storage.users.get(bob.id));
        expect(asked?.agent).toEqual(helper);
        expect(asked?.relation).toEqual(relation);
        // A deleted agent still comes back, as `agents.get` returns it: the caller decides what it means.
        await storage.agents.softDelete(helper.id, '2030-01-01T00:00:00.000Z');
        const none = await storage.runs.getWithActiveChildren(root.id, 'usr_missing', {
          agentId: helper.id,
          childThreadId: newId('thr'),
        });
        expect(none?.agent).toEqual(await storage.agents.get(helper.id));
        expect(none?.agent?.deleted_at).not.toBeNull();
        expect(none?.relation).toBeNull();
        expect(none?.user).toBeUndefined();
        const missing = await storage.runs.getWithActiveChildren(root.id, alice.id, {
          agentId: 'agt_missing',
        });
        expect(missing?.agent).toBeUndefined();
      });

      it('says with it whether a cancel is committed on any run above it, not on itself', async () => {
        const { conversation } = await seedWorld(storage);
        const root = await storage.runs.insert(runInput(conversation));
        const spawn = async (parent: Run) =>
          storage.runs.insert(
            runInput(conversation, {
              thread_id: newId('thr'),
              created_by_run_id: parent.id,
              root_run_id: root.id,
              depth: parent.depth + 1,
            }),
          );
        const middle = await spawn(root);
        const leaf = await spawn(middle);
        const stopped = async (run: Run) =>
          (await storage.runs.getWithActiveChildren(run.id, conversation.user_id))?.stoppedAbove;
        expect([await stopped(root), await stopped(middle), await stopped(leaf)]).toEqual([
          false,
          false,
          false,
        ]);
        await walkRunTo(storage, root, 'running');
        await walkRunTo(storage, root, 'cancel_requested');
        expect([await stopped(root), await stopped(middle), await stopped(leaf)]).toEqual([
          false,
          true,
          true,
        ]);
        await walkRunTo(storage, middle, 'cancelled');
        expect(await stopped(leaf)).toBe(true);
      });
    });

    describe('events', () => {
      async function twoRuns(): Promise<[Run, Run]> {
        const { conversation } = await seedWorld(storage);
        const one = await storage.runs.insert(runInput(conversation));
        const two = await storage.runs.insert(runInput(conversation, { thread_id: newId('thr') }));
        return [one, two];
      }

      it('appends while the run is active only, in the same statement, continuing the numbering', async () => {
        const [one] = await twoRuns();
        const whileActive = async (runId: string, payload: Record<string, unknown>) => {
          const [batch] = await storage.events.appendBatches([
            { run_id: runId, events: [{ type: 'step', payload }], whileActive: true },
          ]);
          return batch?.[0];
        };
        expect(await whileActive(one.id, { i: 1 })).toMatchObject({ seq: 1 });
        await storage.events.append({ run_id: one.id, type: 'step', payload: { i: 2 } });
        expect(await whileActive(one.id, { i: 3 })).toMatchObject({ seq: 3 });
        await walkRunTo(storage, one, 'completed');
        expect(await whileActive(one.id, {})).toBeUndefined();
        expect(await whileActive('run_missing', {})).toBeUndefined();
        expect(await storage.events.lastSeq(one.id)).toBe(3);
      });

      it('reads the latest events of many runs at once, each run its own window', async () => {
        const [one, two] = await twoRuns();
        await storage.events.appendMany(
          one.id,
          [1, 2, 3, 4, 5].map((n) => ({ type: 'step' as const, payload: { n } })),
        );
        await storage.events.appendMany(two.id, [
          { type: 'step', payload: { n: 1 } },
          { type: 'end', payload: {} },
        ]);
        const latest = await storage.events.listLatest([two.id, one.id, 'run_missing', one.id], 3);
        const seqs = (runId: string) =>
          latest.filter((event) => event.run_id === runId).map((event) => event.seq);
        expect(seqs(one.id)).toEqual([3, 4, 5]);
        expect(seqs(two.id)).toEqual([1, 2]);
        expect(latest).toHaveLength(5);
        // Ordered by run, then seq.
        const runOrder = [...new Set(latest.map((event) => event.run_id))];
        expect(runOrder).toEqual([one.id, two.id].sort());
        expect(latest.find((event) => event.seq === 5)).toEqual((await storage.events.list(one.id, 4, 1))[0]);
        expect(await storage.events.listLatest([one.id], 0)).toEqual([]);
        expect(await storage.events.listLatest([], 3)).toEqual([]);
      });

      it('numbers events per run from 1 and round-trips them', async () => {
        const [one, two] = await twoRuns();
        expect(await storage.events.lastSeq(one.id)).toBe(0);
        const first = await storage.events.append({
          run_id: one.id,
          type: 'metadata',
          payload: { run_id: one.id, n: 1 },
        });
        const second = await storage.events.append({
          run_id: one.id,
          type: 'message_delta',
          payload: { text: 'hé ✓' },
        });
        const other = await storage.events.append({ run_id: two.id, type: 'end', payload: {} });
        expect(first).toMatchObject({
          run_id: one.id,
          seq: 1,
          type: 'metadata',
          payload: { run_id: one.id, n: 1 },
        });
        expect(second.seq).toBe(2);
        expect(other.seq).toBe(1);
        expect(Date.parse(first.created_at)).not.toBeNaN();
        expect(await storage.events.list(one.id, 0, 10)).toEqual([first, second]);
        expect(await storage.events.lastSeq(one.id)).toBe(2);
        expect(await storage.events.list('missing', 0, 10)).toEqual([]);
      });

      it('appends a batch of one run in order, continuing and continued by single appends', async () => {
        const [run, other] = await twoRuns();
        expect(await storage.events.appendMany(run.id, [])).toEqual([]);
        await storage.events.append({ run_id: run.id, type: 'metadata', payload: {} });
        const batch = await storage.events.appendMany(run.id, [
          { type: 'message_delta', payload: { text: 'a' } },
          { type: 'tool_call', payload: { name: 'x', args: { q: 'é' } } },
          { type: 'step', payload: { step: 1 } },
        ]);
        expect(batch.map((event) => [event.seq, event.type])).toEqual([
          [2, 'message_delta'],
          [3, 'tool_call'],
          [4, 'step'],
        ]);
        const after = await storage.events.append({ run_id: run.id, type: 'end', payload: {} });
        expect(after.seq).toBe(5);
        expect(await storage.events.list(run.id, 1, 10)).toEqual([...batch, after]);
        const concurrent = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            storage.events.appendMany(other.id, [
              { type: 'step', payload: { i, part: 0 } },
              { type: 'step', payload: { i, part: 1 } },
            ]),
          ),
        );
        for (const [first, second] of concurrent) expect(second?.seq).toBe((first?.seq ?? 0) + 1);
        const stored = await storage.events.list(other.id, 0, 100);
        expect(stored.map((event) => event.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      });

      it('appends batches of several runs in one statement, each numbered on from its own run', async () => {
        const [child, parent] = await twoRuns();
        await storage.events.append({ run_id: parent.id, type: 'metadata', payload: {} });
        const [own, update] = await storage.events.appendBatches([
          {
            run_id: child.id,
            events: [
              { type: 'metadata', payload: { n: 1 } },
              { type: 'step', payload: { n: 2, text: 'é' } },
            ],
          },
          { run_id: parent.id, events: [{ type: 'subagent_update', payload: { n: 1 } }], whileActive: true },
        ]);
        expect(
          own?.map((event) => [event.run_id, event.seq, event.type, fieldOf(event.payload, 'n')]),
        ).toEqual([
          [child.id, 1, 'metadata', 1],
          [child.id, 2, 'step', 2],
        ]);
        expect(update?.map((event) => [event.run_id, event.seq, event.type])).toEqual([
          [parent.id, 2, 'subagent_update'],
        ]);
        expect(await storage.events.list(child.id, 0, 10)).toEqual(own);
        expect(await storage.events.list(parent.id, 1, 10)).toEqual(update);
        // An ended run's guarded batch adds nothing; the other run's still lands, numbered on.
        await walkRunTo(storage, parent, 'completed');
        const [later, none, empty] = await storage.events.appendBatches([
          { run_id: child.id, events: [{ type: 'end', payload: {} }] },
          { run_id: parent.id, events: [{ type: 'subagent_update', payload: {} }], whileActive: true },
          { run_id: 'run_other', events: [] },
        ]);
        expect(later?.map((event) => event.seq)).toEqual([3]);
        expect(none).toEqual([]);
        expect(empty).toEqual([]);
        expect(await storage.events.lastSeq(parent.id)).toBe(2);
        expect(await storage.events.appendBatches([])).toEqual([]);
        await expect(
          storage.events.appendBatches([
            { run_id: child.id, events: [{ type: 'step', payload: {} }] },
            { run_id: child.id, events: [{ type: 'step', payload: {} }] },
          ]),
        ).rejects.toThrow(/at most once/);
        // Concurrent multi-run appends keep both runs' numbers gapless.
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            storage.events.appendBatches([
              { run_id: child.id, events: [{ type: 'step', payload: { i } }] },
              { run_id: parent.id, events: [{ type: 'step', payload: { i } }] },
            ]),
          ),
        );
        expect((await storage.events.list(child.id, 0, 100)).map((event) => event.seq)).toEqual(
          Array.from({ length: 23 }, (_, i) => i + 1),
        );
        expect((await storage.events.list(parent.id, 0, 100)).map((event) => event.seq)).toEqual(
          Array.from({ length: 22 }, (_, i) => i + 1),
        );
      });

      it('pages with list(after, limit)', async () => {
        const [run] = await twoRuns();
        for (let i = 0; i < 25; i += 1)
          await storage.events.append({ run_id: run.id, type: 'step', payload: { i } });
        const pages: number[][] = [];
        for (let after = 0; ;) {
          const page = await storage.events.list(run.id, after, 10);
          if (page.length === 0) break;
          pages.push(page.map((event) => event.seq));
          after = page[page.length - 1]!.seq;
        }
        expect(pages.map((page) => page.length)).toEqual([10, 10, 5]);
        expect(pages.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
        expect((await storage.events.list(run.id, 20, 100)).map((e) => fieldOf(e.payload, 'i'))).toEqual([
          20, 21, 22, 23, 24,
        ]);
        expect(await storage.events.list(run.id, 25, 10)).toEqual([]);
      });

      it('stays gapless under 200 concurrent appends to one run', async () => {
        const [run, other] = await twoRuns();
        const appended = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            storage.events.append({
              run_id: i % 10 === 0 ? other.id : run.id,
              type: 'message_delta',
              payload: { i },
            }),
          ),
        );
        const mine = appended.filter((event) => event.run_id === run.id).map((event) => event.seq);
        expect([...mine].sort((a, b) => a - b)).toEqual(Array.from({ length: 180 }, (_, i) => i + 1));
        const concurrent = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            storage.events.append({ run_id: other.id, type: 'step', payload: { i } }),
          ),
        );
        expect(new Set(concurrent.map((event) => event.seq)).size).toBe(200);
        const stored = await storage.events.list(other.id, 0, 1000);
        expect(stored.map((event) => event.seq)).toEqual(Array.from({ length: 220 }, (_, i) => i + 1));
        expect(await storage.events.lastSeq(other.id)).toBe(220);
      });
    });

    describe('transactions', () => {
      it('answers a ping outside and inside a transaction, writing nothing', async () => {
        await expect(storage.ping()).resolves.toBeUndefined();
        const user = await storage.transaction(async (tx) => {
          const created = await tx.users.create({ name: 'alice', role: 'member' });
          await expect(tx.ping()).resolves.toBeUndefined();
          return created;
        });
        expect(await storage.users.list()).toEqual([user]);
      });

      it('commits the work and returns its value', async () => {
        const result = await storage.transaction(async (tx) => {
          const user = await tx.users.create({ name: 'alice', role: 'member' });
          expect(await tx.users.get(user.id)).toEqual(user);
          return user.id;
        });
        expect((await storage.users.get(result))?.name).toBe('alice');
      });

      it('rolls everything back when the work throws', async () => {
        const { alice, conversation } = await seedWorld(storage);
        const parentRun = await storage.runs.insert(runInput(conversation));
        const childThread = newId('thr');
        let childId = '';
        await expect(
          storage.transaction(async (tx) => {
            const child = await tx.conversations.create({
              ...conversation,
              thread_id: childThread,
              status: 'subagent',
            });
            childId = child.id;
            await tx.subagentThreads.create({
              user_id: alice.id,
              parent_conversation_id: conversation.id,
              child_conversation_id: child.id,
              child_thread_id: childThread,
              subagent_slug: 'researcher',
              created_by_run_id: parentRun.id,
            });
            await tx.events.append({ run_id: parentRun.id, type: 'subagent_update', payload: {} });
            throw new Error('abort the unit of work');
          }),
        ).rejects.toThrow('abort the unit of work');
        expect(childId).not.toBe('');
        expect(await storage.conversations.get(childId)).toBeUndefined();
        expect(await storage.conversations.getByThread(childThread)).toBeUndefined();
        expect(await storage.subagentThreads.getByChildThread(childThread)).toBeUndefined();
        expect(await storage.subagentThreads.listForParent(conversation.id)).toEqual([]);
        expect(await storage.events.lastSeq(parentRun.id)).toBe(0);
      });

      it('rolls back when a constraint fails inside, surfacing the domain error', async () => {
        const { conversation } = await seedWorld(storage);
        await storage.runs.insert(runInput(conversation));
        await expectCode(
          storage.transaction(async (tx) => {
            await tx.users.create({ name: 'dave', role: 'member' });
            await tx.runs.insert(runInput(conversation));
          }),
          'run_busy',
        );
        expect(await storage.users.getByName('dave')).toBeUndefined();
      });

      it('joins the outer transaction when nested', async () => {
        await expect(
          storage.transaction(async (outer) => {
            const alice = await outer.users.create({ name: 'alice', role: 'member' });
            await outer.transaction(async (inner) => {
              expect(await inner.users.get(alice.id)).toEqual(alice);
              await inner.users.create({ name: 'bob', role: 'member' });
            });
            expect(await outer.users.getByName('bob')).toBeDefined();
            throw new Error('undo both');
          }),
        ).rejects.toThrow('undo both');
        expect(await storage.users.list()).toEqual([]);
      });
    });

    describeRunListContract(() => storage);
    describeSharedCommitContract(() => storage);
    describeRunBudgetContract(
      () => storage,
      async (parent) => {
        const world = worlds.get(storage) ?? (await seedWorld(storage));
        worlds.set(storage, world);
        const { conversation } = world;
        return storage.runs.insert(
          runInput(conversation, {
            thread_id: newId('thr'),
            ...(parent
              ? { created_by_run_id: parent.id, root_run_id: parent.root_run_id, depth: parent.depth + 1 }
              : {}),
          }),
        );
      },
    );
    describeHumanInputAndFilesContract(() => storage);
    describeRunAttemptContextContract(() => storage);
    describeRunForksContract(
      () => storage,
      async () => {
        const world = worlds.get(storage) ?? (await seedWorld(storage));
        worlds.set(storage, world);
        return world;
      },
    );
    describeRunVerificationsContract(
      () => storage,
      async () => {
        const world = worlds.get(storage) ?? (await seedWorld(storage));
        worlds.set(storage, world);
        return world;
      },
    );
    /** A run on a thread of its own, or another run on `sameThread`'s thread. */
    const makeRun = async (sameThread?: Run): Promise<Run> => {
      const world = worlds.get(storage) ?? (await seedWorld(storage));
      worlds.set(storage, world);
      const conversation =
        sameThread === undefined
          ? await storage.conversations.create({
              user_id: world.conversation.user_id,
              agent_id: world.conversation.agent_id,
              thread_id: newId('thr'),
              project_id: world.conversation.project_id,
              status: 'active',
              title: 'Usage',
              metadata: {},
            })
          : { ...world.conversation, thread_id: sameThread.thread_id, id: sameThread.conversation_id };
      return storage.runs.insert(runInput(conversation));
    };
    describeMessageUsageContract(() => storage, makeRun);
    describeToolCallJournalContract(() => storage, makeRun);
  });
  describeSkillStorageContract(adapterName, open);
  describeKnowledgeContract(adapterName, open);
}
