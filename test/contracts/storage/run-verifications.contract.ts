import { describe, expect, it } from 'vitest';
import { newId } from '../../../src/core/ids.js';
import type { Storage } from '../../../src/core/ports/storage.js';
import type { Conversation } from '../../../src/core/records/conversation.js';
import type { Verification } from '../../../src/core/verification/verification.js';
import { contractRunInput } from './contract-run-input.js';

/*
 * Verdicts on child results (`run_verifications`, 0019_run_verifications; docs/verified-delegation.md): one row per
 * judged run, its latest verdict wins, the JSON the parent received reads back whole (reasons as the list the
 * grader gave, evidence included), and the run list's verdict filter reads it per user. Part of the storage
 * contract (called from storage.contract.ts with the store under test and the conversation of a seeded world).
 */
export function describeRunVerificationsContract(
  store: () => Storage,
  world: () => Promise<{ conversation: Conversation }>,
): void {
  const verification = (
    runId: string,
    verdict: Verification['verdict'],
    reasons: string[],
  ): Verification => ({
    verdict,
    reasons,
    evidence: {
      run_id: runId,
      status: 'completed',
      model_calls: 2,
      tokens: { input: 10, output: 5, total: 15 },
      tool_calls: { write_file: { calls: 1, failed: 0 } },
      tool_calls_total: 1,
      tool_calls_failed: 0,
      files_written: ['notes/a.md'],
      artifacts: [],
      children: [],
      flags: ['remote_reported'],
      remote: {
        task_id: 'task-1',
        context_id: null,
        state: 'TASK_STATE_COMPLETED',
        artifacts: [{ artifact_id: 'output', name: 'output', chars: 12 }],
        messages: 1,
        reported_by: 'troupe',
      },
    },
    revisions: 0,
    grader_run_ids: ['grader-1'],
  });

  /** A run on a thread of its own: many runs of one test, none busy with another. */
  const insertRun = (storage: Storage, conversation: Conversation) =>
    storage.runs.insert(contractRunInput(conversation, { thread_id: newId('thr') }));

  describe('run verifications', () => {
    it('stores a verdict per judged run, reads it back whole, and the latest put wins', async () => {
      const storage = store();
      const { conversation } = await world();
      const parent = await insertRun(storage, conversation);
      const child = await insertRun(storage, conversation);
      const other = await insertRun(storage, conversation);
      expect(await storage.verifications.get(child.id)).toBeUndefined();
      // A reason may contain "; ": it is kept as one list item.
      const first = verification(child.id, 'needs_revision', ['Add the count; at the end', 'Too long']);
      const stored = await storage.verifications.put({
        run_id: child.id,
        user_id: conversation.user_id,
        parent_run_id: parent.id,
        verdict: 'needs_revision',
        verification: first,
      });
      expect(stored).toMatchObject({ run_id: child.id, parent_run_id: parent.id, verdict: 'needs_revision' });
      expect(typeof stored.created_at).toBe('string');
      expect((await storage.verifications.get(child.id))?.verification).toEqual(first);
      const second = { ...verification(child.id, 'satisfied', ['Fine']), revisions: 1 };
      await storage.verifications.put({
        run_id: child.id,
        user_id: conversation.user_id,
        parent_run_id: parent.id,
        verdict: 'satisfied',
        verification: second,
      });
      const read = await storage.verifications.get(child.id);
      expect(read).toMatchObject({ verdict: 'satisfied', verification: second });
      await storage.verifications.put({
        run_id: other.id,
        user_id: conversation.user_id,
        parent_run_id: null,
        verdict: 'failed',
        verification: verification(other.id, 'failed', ['No']),
      });
      const many = await storage.verifications.getMany([other.id, child.id, 'run_missing']);
      expect(many.map((entry) => [entry.run_id, entry.verdict]).sort()).toEqual(
        [
          [child.id, 'satisfied'],
          [other.id, 'failed'],
        ].sort(),
      );
      expect(await storage.verifications.getMany([])).toEqual([]);
    });

    it("filters the user's run list by verdict; another user's filter sees none of them", async () => {
      const storage = store();
      const { conversation } = await world();
      const judged = await insertRun(storage, conversation);
      const unjudged = await insertRun(storage, conversation);
      await storage.verifications.put({
        run_id: judged.id,
        user_id: conversation.user_id,
        parent_run_id: null,
        verdict: 'needs_revision',
        verification: verification(judged.id, 'needs_revision', ['Again']),
      });
      const user = conversation.user_id;
      const listed = await storage.runs.listPage({ user_id: user, verdicts: ['needs_revision'], limit: 100 });
      expect(listed.map((entry) => entry.run.id)).toContain(judged.id);
      expect(listed.map((entry) => entry.run.id)).not.toContain(unjudged.id);
      const satisfied = await storage.runs.listPage({ user_id: user, verdicts: ['satisfied'], limit: 100 });
      expect(satisfied.map((entry) => entry.run.id)).not.toContain(judged.id);
      const stranger = await storage.users.create({
        name: `stranger-${judged.id.slice(-6)}`,
        role: 'member',
      });
      const foreign = await storage.runs.listPage({
        user_id: stranger.id,
        verdicts: ['needs_revision'],
        limit: 100,
      });
      expect(foreign).toEqual([]);
    });
  });
}
