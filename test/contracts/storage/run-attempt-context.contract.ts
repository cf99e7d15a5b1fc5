import { describe, expect, it } from 'vitest';
import { contractRunInput } from './contract-run-input.js';
import { zeroAmounts } from '../../../src/core/budgets/budget.js';
import { newId, newRunId } from '../../../src/core/ids.js';
import type { RunAttemptContext, Storage } from '../../../src/core/ports/storage.js';
import type { Run } from '../../../src/core/records/run.js';

/*
 * `runs.attemptContext` and `runs.claimWithContext`, part of the storage contract (called from storage.contract.ts). Its records must be
 * exactly what the single-row getters return: the runtime swaps five reads for it. A missing agent, user,
 * conversation or project cannot be set up here: foreign keys keep each while a run refers to it (and none
 * is ever hard-deleted), so only the ledger and the run itself can be absent.
 */

/** A run of a non-default, subagent, delegatable agent with a config: every mapper has something to map. */
async function seedRun(storage: Storage): Promise<Run> {
  const owner = await storage.users.create({ name: `owner-${newId('usr').slice(4, 12)}`, role: 'member' });
  await storage.users.setDelegationPolicy(owner.id, 'whitelist', ['writer']);
  const slug = `agent-${newId('agt').slice(4, 12)}`;
  const agent = await storage.agents.create({
    slug,
    name: slug,
    description: 'answers',
    backend: 'chat',
    is_subagent: true,
    owner_id: owner.id,
    visibility: 'shared',
    config: { model: 'scripted:contract', tools: ['read_file'], budget: { tokens: 100 } },
    status: 'published',
    delegatable: true,
    delegation_brief: 'a brief',
    is_default: false,
  });
  const project = await storage.projects.create({ user_id: owner.id, name: 'work', workdir: '/tmp/work' });
  const conversation = await storage.conversations.create({
    user_id: owner.id,
    agent_id: agent.id,
    thread_id: newId('thr'),
    project_id: project.id,
    status: 'active',
    title: 'Chat',
    metadata: { pinned: true, tags: ['a'] },
  });
  return storage.runs.insert(contractRunInput(conversation));
}

async function byGetters(storage: Storage, run: Run): Promise<RunAttemptContext> {
  const conversation = await storage.conversations.get(run.conversation_id);
  return {
    agent: await storage.agents.get(run.agent_id),
    user: await storage.users.get(run.user_id),
    conversation,
    project: conversation && (await storage.projects.get(conversation.project_id)),
    ledger: await storage.budgets.get(run.id),
  };
}

export function describeRunAttemptContextContract(store: () => Storage): void {
  describe('run attempt context', () => {
    it('returns the records the single-row getters return, ledger included', async () => {
      const storage = store();
      const run = await seedRun(storage);
      await storage.budgets.insert({
        run_id: run.id,
        parent_run_id: null,
        limits: { tokens: 100, wall_ms: 5000 },
        deadline_at: '2030-01-01T00:00:05.000Z',
        reserved: zeroAmounts(),
      });
      await storage.budgets.admit(
        run.id,
        { tokens: 7, model_calls: 1, tool_calls: 0 },
        '2030-01-01T00:00:00.000Z',
      );
      const context = await storage.runs.attemptContext(run.id);
      expect(context).toStrictEqual(await byGetters(storage, run));
      expect(context.ledger?.used).toEqual({ tokens: 7, model_calls: 1, tool_calls: 0 });
      expect(context.project?.workdir).toBe('/tmp/work');
    });

    it('leaves the ledger undefined for a run without a budget', async () => {
      const storage = store();
      const run = await seedRun(storage);
      const context = await storage.runs.attemptContext(run.id);
      expect(context.ledger).toBeUndefined();
      expect(context.agent?.id).toBe(run.agent_id);
      expect(context).toStrictEqual(await byGetters(storage, run));
    });

    it('returns a soft-deleted agent as agents.get does, deletion time included', async () => {
      const storage = store();
      const run = await seedRun(storage);
      await storage.agents.softDelete(run.agent_id, '2030-01-01T00:00:00.000Z');
      const context = await storage.runs.attemptContext(run.id);
      expect(context.agent?.deleted_at).toBe('2030-01-01T00:00:00.000Z');
      expect(context).toStrictEqual(await byGetters(storage, run));
    });

    it('returns nothing for an unknown run', async () => {
      const storage = store();
      await seedRun(storage);
      expect(await storage.runs.attemptContext(newRunId())).toStrictEqual({
        agent: undefined,
        user: undefined,
        conversation: undefined,
        project: undefined,
        ledger: undefined,
      });
    });

    it('claims with the context: one winner, left as a claim leaves it, its context as the getters read it', async () => {
      const storage = store();
      const run = await seedRun(storage);
      await storage.budgets.insert({
        run_id: run.id,
        parent_run_id: null,
        limits: { tokens: 100 },
        deadline_at: null,
        reserved: zeroAmounts(),
      });
      const now = '2030-01-01T00:00:00.000Z';
      const lease = '2030-01-01T00:00:30.000Z';
      const claims = await Promise.all([
        storage.runs.claimWithContext(run.id, 'wrk_a', lease, now),
        storage.runs.claimWithContext(run.id, 'wrk_b', lease, now),
      ]);
      const won = claims.filter((claimed) => claimed !== undefined);
      expect(won).toHaveLength(1);
      const [claimed] = won;
      expect(claimed?.run).toStrictEqual(await storage.runs.get(run.id));
      expect(claimed?.run).toMatchObject({
        status: 'running',
        lease_expires_at: lease,
        attempt: 1,
        started_at: now,
      });
      expect(claimed?.context).toStrictEqual(await byGetters(storage, run));
      expect(claimed?.context.ledger?.limits).toEqual({ tokens: 100 });
      // Not pending any more, or no such run: nothing claimed, nothing read.
      expect(await storage.runs.claimWithContext(run.id, 'wrk_c', lease, now)).toBeUndefined();
      expect(await storage.runs.claimWithContext(newRunId(), 'wrk_c', lease, now)).toBeUndefined();
      expect((await storage.runs.get(run.id))?.worker_id).toBe(claimed?.run.worker_id);
    });

    it('reads inside a transaction what the transaction wrote', async () => {
      const storage = store();
      await storage.transaction(async (tx) => {
        const run = await seedRun(tx);
        const context = await tx.runs.attemptContext(run.id);
        expect(context.agent?.id).toBe(run.agent_id);
        expect(context).toStrictEqual(await byGetters(tx, run));
      });
    });
  });
}
