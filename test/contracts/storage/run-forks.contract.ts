import { describe, expect, it } from 'vitest';
import { newId, newRunId } from '../../../src/core/ids.js';
import type { Storage } from '../../../src/core/ports/storage.js';
import type { Conversation } from '../../../src/core/records/conversation.js';
import { contractRunInput } from './contract-run-input.js';

/*
 * A fork's run records where it came from (`forked_from`, 0018_run_forks), and a fork is written in one
 * transaction (docs/effects-and-forks.md#fork); part of the storage contract (called from storage.contract.ts
 * with the store under test and the conversation of a seeded world).
 */
export function describeRunForksContract(
  store: () => Storage,
  world: () => Promise<{ conversation: Conversation }>,
): void {
  describe('run forks', () => {
    const newConversation = (storage: Storage, from: Conversation, title: string) =>
      storage.conversations.create({
        user_id: from.user_id,
        agent_id: from.agent_id,
        thread_id: newId('thr'),
        project_id: from.project_id,
        status: 'active',
        title,
        metadata: { forked_from: { run_id: 'r', step: 1, conversation_id: from.id } },
      });

    it('stores forked_from on a run and reads it back by every run read; other runs have null', async () => {
      const storage = store();
      const { conversation } = await world();
      const source = await storage.runs.insert(contractRunInput(conversation));
      const target = await newConversation(storage, conversation, 'Fork');
      const fork = await storage.runs.insert(
        contractRunInput(target, { forked_from: { run_id: source.id, step: 2 } }),
      );
      expect(source.forked_from).toBeNull();
      expect(fork.forked_from).toEqual({ run_id: source.id, step: 2 });
      expect((await storage.runs.get(fork.id))?.forked_from).toEqual({ run_id: source.id, step: 2 });
      expect((await storage.runs.getMany([fork.id, source.id])).map((run) => run.forked_from)).toEqual(
        expect.arrayContaining([null, { run_id: source.id, step: 2 }]),
      );
      expect((await storage.runs.listByRoot(fork.id)).map((run) => run.forked_from)).toEqual([
        { run_id: source.id, step: 2 },
      ]);
      const user = conversation.user_id;
      const forks = await storage.runs.listPage({ user_id: user, forked: true, limit: 100 });
      expect(forks.map((entry) => entry.run.id)).toEqual([fork.id]);
      const others = await storage.runs.listPage({ user_id: user, forked: false, limit: 100 });
      expect(others.map((entry) => entry.run.id)).toContain(source.id);
      expect(others.map((entry) => entry.run.id)).not.toContain(fork.id);
    });

    it('leaves no conversation, message or run behind when the fork transaction fails', async () => {
      const storage = store();
      const { conversation } = await world();
      const before = await storage.conversations.listForUser(conversation.user_id, ['active']);
      let threadId = '';
      const runId = newRunId();
      await expect(
        storage.transaction(async (tx) => {
          const target = await newConversation(tx, conversation, 'Doomed fork');
          threadId = target.thread_id;
          await tx.runs.insert(
            contractRunInput(target, { id: runId, forked_from: { run_id: 'x', step: 0 } }),
          );
          await tx.messages.append(target.thread_id, runId, 0, [{ role: 'user', content: 'copied' }]);
          throw new Error('the fork failed half way');
        }),
      ).rejects.toThrow('the fork failed half way');
      expect(await storage.conversations.listForUser(conversation.user_id, ['active'])).toEqual(before);
      expect(await storage.runs.get(runId)).toBeUndefined();
      expect(await storage.messages.list(threadId)).toEqual([]);
    });
  });
}
