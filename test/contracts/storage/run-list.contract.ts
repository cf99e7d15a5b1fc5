import { describe, expect, it } from 'vitest';
import { contractRunInput } from './contract-run-input.js';
import { newId } from '../../../src/core/ids.js';
import type { NewRun, RunListEntry, Storage } from '../../../src/core/ports/storage.js';
import type { Conversation } from '../../../src/core/records/conversation.js';
import type { Run, RunStatus } from '../../../src/core/records/run.js';
import { walkRunTo } from '../../helpers/walk-run-to.js';

/*
 * `runs.listPage`, part of the storage contract (called from storage.contract.ts with the store under test).
 * Runs are inserted a few milliseconds apart so creation order is time order.
 */

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Seeded {
  alice: string;
  bob: string;
  helper: { id: string; slug: string };
  chatAgent: string;
  conversation: Conversation;
  other: Conversation;
  /** Alice's runs, oldest first. */
  runs: Run[];
  bobRun: Run;
}

async function seed(storage: Storage): Promise<Seeded> {
  const alice = await storage.users.create({ name: 'list-alice', role: 'member' });
  const bob = await storage.users.create({ name: 'list-bob', role: 'member' });
  const agent = (slug: string, owner: string, isSubagent = false) =>
    storage.agents.create({
      slug,
      name: `Name of ${slug}`,
      description: '',
      backend: isSubagent ? 'subagent' : 'chat',
      is_subagent: isSubagent,
      owner_id: owner,
      visibility: 'private',
      config: {},
      status: 'draft',
      delegatable: true,
      delegation_brief: null,
      is_default: false,
    });
  const main = await agent('list-main', alice.id);
  const helper = await agent('list-helper', alice.id, true);
  const project = await storage.projects.create({ user_id: alice.id, name: 'p', workdir: '/tmp/p' });
  const conversationOf = (userId: string) =>
    storage.conversations.create({
      user_id: userId,
      agent_id: main.id,
      thread_id: newId('thr'),
      project_id: project.id,
      status: 'active',
      title: 't',
      metadata: {},
    });
  const conversation = await conversationOf(alice.id);
  const other = await conversationOf(alice.id);
  const bobConversation = await conversationOf(bob.id);

  const insert = async (input: Partial<NewRun> & { conversation: Conversation }, status?: RunStatus) => {
    const { conversation: where, ...overrides } = input;
    const run = await storage.runs.insert(
      contractRunInput(where, { thread_id: newId('thr'), agent_id: main.id, ...overrides }),
    );
    await pause(3);
    return status === undefined ? run : walkRunTo(storage, run, status);
  };

  const root = await insert({ conversation, input: { message: 'Plan the Q3 roadmap' } }, 'completed');
  const child = await insert(
    {
      conversation,
      agent_id: helper.id,
      run_type: 'subagent',
      created_by_run_id: root.id,
      root_run_id: root.id,
      depth: 1,
      input: { message: 'Research 100% of the "notes" folder' },
    },
    'failed',
  );
  const delegation = await insert(
    {
      conversation,
      run_type: 'delegation',
      created_by_run_id: root.id,
      root_run_id: root.id,
      depth: 1,
      input: { message: 'ask_the_analyst about ROADMAP' },
    },
    'running',
  );
  const later = await insert({ conversation: other, input: { message: 'second chat' } });
  const bobRun = await insert({ conversation: bobConversation, input: { message: 'Plan the Q3 roadmap' } });
  return {
    alice: alice.id,
    bob: bob.id,
    helper: { id: helper.id, slug: helper.slug },
    chatAgent: main.id,
    conversation,
    other,
    runs: [root, child, delegation, later],
    bobRun,
  };
}

const ids = (entries: RunListEntry[]) => entries.map((entry) => entry.run.id);

export function describeRunListContract(store: () => Storage): void {
  describe('runs.listPage', () => {
    it('lists one user newest first with agent and child count; no user means everyone', async () => {
      const storage = store();
      const world = await seed(storage);
      const [root, child, delegation, later] = world.runs as [Run, Run, Run, Run];
      const page = await storage.runs.listPage({ user_id: world.alice, limit: 10 });
      expect(ids(page)).toEqual([later.id, delegation.id, child.id, root.id]);
      const rootEntry = page.find((entry) => entry.run.id === root.id);
      expect(rootEntry).toMatchObject({
        child_count: 2,
        agent: { id: world.chatAgent, slug: 'list-main', name: 'Name of list-main' },
      });
      expect(rootEntry?.run).toEqual(await storage.runs.get(root.id));
      expect(page.find((entry) => entry.run.id === child.id)).toMatchObject({
        child_count: 0,
        agent: { slug: 'list-helper' },
      });
      expect(ids(await storage.runs.listPage({ limit: 10 }))[0]).toBe(world.bobRun.id);
      expect(await storage.runs.listPage({ user_id: world.bob, limit: 10 })).toHaveLength(1);
    });

    it('pages by (created_at, id) without gaps or repeats, also within one instant', async () => {
      const storage = store();
      const world = await seed(storage);
      const all = ids(await storage.runs.listPage({ user_id: world.alice, limit: 10 }));
      const seen: string[] = [];
      let before: { created_at: string; id: string } | undefined;
      for (;;) {
        const page = await storage.runs.listPage({
          user_id: world.alice,
          limit: 3,
          ...(before ? { before } : {}),
        });
        seen.push(...ids(page));
        const last = page.at(-1);
        if (page.length < 3 || last === undefined) break;
        before = { created_at: last.run.created_at, id: last.run.id };
      }
      expect(seen).toEqual(all);
      // Rows sharing the cursor's instant: only those with a smaller id follow it.
      const [newest] = world.runs.slice(-1) as [Run];
      const sameInstant = await storage.runs.listPage({
        user_id: world.alice,
        limit: 10,
        before: { created_at: newest.created_at, id: `${newest.id}~` },
      });
      expect(ids(sameInstant)[0]).toBe(newest.id);
    });

    it('filters by status, run type, agent, conversation and time range', async () => {
      const storage = store();
      const world = await seed(storage);
      const [root, child, delegation, later] = world.runs as [Run, Run, Run, Run];
      const list = async (filter: Omit<Parameters<Storage['runs']['listPage']>[0], 'limit' | 'user_id'>) =>
        ids(await storage.runs.listPage({ user_id: world.alice, limit: 10, ...filter }));
      expect(await list({ statuses: ['failed', 'running'] })).toEqual([delegation.id, child.id]);
      expect(await list({ statuses: [] })).toEqual([]);
      expect(await list({ run_types: ['subagent', 'delegation'] })).toEqual([delegation.id, child.id]);
      expect(await list({ run_types: [] })).toEqual([]);
      expect(await list({ agent_id: world.helper.id })).toEqual([child.id]);
      expect(await list({ conversation_id: world.other.id })).toEqual([later.id]);
      expect(await list({ created_from: child.created_at, created_to: later.created_at })).toEqual([
        delegation.id,
        child.id,
      ]);
      expect(await list({ created_from: root.created_at })).toHaveLength(4);
    });

    it('searches the input message case-insensitively, with % _ and quotes taken literally', async () => {
      const storage = store();
      const world = await seed(storage);
      const [root, child, delegation] = world.runs as [Run, Run, Run, Run];
      const search = async (text: string) =>
        ids(await storage.runs.listPage({ user_id: world.alice, limit: 10, search: text }));
      expect(await search('roadmap')).toEqual([delegation.id, root.id]);
      expect(await search('Q3 ROADMAP')).toEqual([root.id]);
      expect(await search('100%')).toEqual([child.id]);
      expect(await search('"notes"')).toEqual([child.id]);
      expect(await search('ask_the')).toEqual([delegation.id]);
      expect(await search('ask%the')).toEqual([]);
      expect(await search('_')).toEqual([delegation.id]);
      expect(await search('message')).toEqual([]);
    });
  });
}
