import { describe, expect, it } from 'vitest';
import { contractRunInput } from './contract-run-input.js';
import { newId } from '../../../src/core/ids.js';
import type { NewArtifact, Storage } from '../../../src/core/ports/storage.js';
import type { Conversation } from '../../../src/core/records/conversation.js';
import type { Run } from '../../../src/core/records/run.js';

/*
 * Questions (kind `question` rows of the approvals table), artifacts and attachments (issue 12), run against
 * every adapter from `describeStorageContract` with that suite's fresh store per test.
 */

async function seed(
  storage: Storage,
): Promise<{ conversation: Conversation; run: Run; other: Conversation }> {
  const alice = await storage.users.create({ name: 'alice', role: 'member' });
  const agent = await storage.agents.create({
    slug: 'main',
    name: 'main',
    description: '',
    backend: 'chat',
    is_subagent: false,
    owner_id: alice.id,
    visibility: 'private',
    config: {},
    status: 'draft',
    delegatable: true,
    delegation_brief: null,
    is_default: false,
  });
  const project = await storage.projects.create({
    user_id: alice.id,
    name: 'default',
    workdir: '/tmp/alice',
  });
  const conversationOf = () =>
    storage.conversations.create({
      user_id: alice.id,
      agent_id: agent.id,
      thread_id: newId('thr'),
      project_id: project.id,
      status: 'active',
      title: 'chat',
      metadata: {},
    });
  const conversation = await conversationOf();
  const other = await conversationOf();
  const run = await storage.runs.insert(
    contractRunInput(conversation, { runtime_scope_id: conversation.thread_id }),
  );
  return { conversation, run, other };
}

export function describeHumanInputAndFilesContract(store: () => Storage): void {
  describe('questions (human inputs of kind question)', () => {
    it('answers a pending question once, and keeps approvals and questions apart', async () => {
      const storage = store();
      const { run } = await seed(storage);
      const questions = { questions: [{ question: 'Which?' }] };
      const asked = await storage.approvals.request({
        run_id: run.id,
        tool_call_id: 'q1',
        tool_name: 'ask_user_question',
        args: questions,
        kind: 'question',
      });
      expect(asked).toMatchObject({ kind: 'question', status: 'pending', answers: null, args: questions });
      await storage.approvals.request({
        run_id: run.id,
        tool_call_id: 'a1',
        tool_name: 'write_file',
        args: {},
      });
      expect((await storage.approvals.get(run.id, 'a1'))?.kind).toBe('approval');

      // A question cannot be approved, an approval cannot be answered.
      expect(await storage.approvals.decide(run.id, 'q1', 'approved', 'usr_x', null)).toBeUndefined();
      expect(await storage.approvals.answer(run.id, 'a1', ['yes'], 'usr_x')).toBeUndefined();

      const answered = await storage.approvals.answer(run.id, 'q1', ['this one'], 'usr_x');
      expect(answered).toMatchObject({ status: 'answered', answers: ['this one'], decided_by: 'usr_x' });
      expect(answered?.decided_at).not.toBeNull();
      expect(await storage.approvals.answer(run.id, 'q1', ['again'], 'usr_x')).toBeUndefined();
      expect((await storage.approvals.get(run.id, 'q1'))?.answers).toEqual(['this one']);
      // Two racing answers: exactly one wins.
      await storage.approvals.request({
        run_id: run.id,
        tool_call_id: 'q2',
        tool_name: 'ask_user_question',
        args: questions,
        kind: 'question',
      });
      const racing = await Promise.all([
        storage.approvals.answer(run.id, 'q2', ['first'], 'usr_x'),
        storage.approvals.answer(run.id, 'q2', ['second'], 'usr_y'),
      ]);
      expect(racing.filter((row) => row !== undefined)).toHaveLength(1);
      const rows = await storage.approvals.listForRun(run.id);
      expect(rows.map((row) => [row.tool_call_id, row.kind, row.status]).sort()).toEqual([
        ['a1', 'approval', 'pending'],
        ['q1', 'question', 'answered'],
        ['q2', 'question', 'answered'],
      ]);
    });
  });

  describe('approvals for the rest of a run', () => {
    it('records the scope of a decision and finds the run-wide approval of a tool, and only that', async () => {
      const storage = store();
      const { run, other: elsewhere } = await seed(storage);
      const other = await storage.runs.insert(
        contractRunInput(elsewhere, { runtime_scope_id: elsewhere.thread_id }),
      );
      for (const [id, tool] of [
        ['w1', 'write_file'],
        ['w2', 'write_file'],
        ['e1', 'execute'],
        ['e2', 'execute'],
      ]) {
        const asked = await storage.approvals.request({
          run_id: run.id,
          tool_call_id: id as string,
          tool_name: tool as string,
          args: {},
        });
        expect(asked.scope).toBe('call');
      }
      expect(await storage.approvals.runWideApproval(run.id, 'write_file')).toBeUndefined();
      // A rejection and a one-call approval cover nothing else.
      await storage.approvals.decide(run.id, 'e1', 'approved', 'usr_x', null);
      await storage.approvals.decide(run.id, 'e2', 'rejected', 'usr_x', 'no');
      expect(await storage.approvals.runWideApproval(run.id, 'execute')).toBeUndefined();

      const granted = await storage.approvals.decide(run.id, 'w1', 'approved', 'usr_x', null, 'run');
      expect(granted).toMatchObject({ status: 'approved', scope: 'run', decided_by: 'usr_x' });
      expect(await storage.approvals.runWideApproval(run.id, 'write_file')).toEqual(granted);
      expect(await storage.approvals.get(run.id, 'w1')).toEqual(granted);
      // Another tool of the run, and the same tool in another run, are not covered.
      expect(await storage.approvals.runWideApproval(run.id, 'execute')).toBeUndefined();
      expect(await storage.approvals.runWideApproval(other.id, 'write_file')).toBeUndefined();
      expect(
        (await storage.approvals.listForRun(run.id))
          .map((row) => [row.tool_call_id, row.status, row.scope])
          .sort(),
      ).toEqual([
        ['e1', 'approved', 'call'],
        ['e2', 'rejected', 'call'],
        ['w1', 'approved', 'run'],
        ['w2', 'pending', 'call'],
      ]);
    });
  });

  describe('artifacts', () => {
    it("records a call's artifacts idempotently and lists them per conversation", async () => {
      const storage = store();
      const { conversation, run, other } = await seed(storage);
      const base: Omit<NewArtifact, 'path' | 'title' | 'size'> = {
        run_id: run.id,
        conversation_id: conversation.id,
        user_id: run.user_id,
        tool_call_id: 'call_1',
        content_type: 'text/markdown; charset=utf-8',
      };
      const first = await storage.artifacts.record([
        { ...base, path: 'b.md', title: 'B', size: 3 },
        { ...base, path: 'a.md', title: null, size: 5_000_000_000 },
      ]);
      expect(first.map((artifact) => [artifact.path, artifact.title, artifact.size])).toEqual([
        ['b.md', 'B', 3],
        ['a.md', null, 5_000_000_000],
      ]);
      expect(first.every((artifact) => artifact.id.startsWith('art_'))).toBe(true);
      // A resumed call presents the same files again: the first rows stand.
      const again = await storage.artifacts.record([{ ...base, path: 'a.md', title: 'changed', size: 1 }]);
      expect(again).toEqual([first[1]]);
      expect(await storage.artifacts.get(first[0]?.id ?? '')).toEqual(first[0]);
      expect(await storage.artifacts.get('art_missing')).toBeUndefined();
      expect(
        (await storage.artifacts.listForConversation(conversation.id)).map((artifact) => artifact.id).sort(),
      ).toEqual(first.map((artifact) => artifact.id).sort());
      expect(await storage.artifacts.listForConversation(other.id)).toEqual([]);
      expect(await storage.artifacts.record([])).toEqual([]);
    });

    it('deletes one artifact, leaving the others; an unknown id is no error', async () => {
      const storage = store();
      const { conversation, run } = await seed(storage);
      const [kept, gone] = await storage.artifacts.record(
        ['kept.md', 'gone.md'].map((path) => ({
          run_id: run.id,
          conversation_id: conversation.id,
          user_id: run.user_id,
          tool_call_id: 'call_d',
          path,
          title: null,
          size: 1,
          content_type: 'text/markdown',
        })),
      );
      await storage.artifacts.delete(gone?.id ?? '');
      await storage.artifacts.delete('art_missing');
      expect(await storage.artifacts.get(gone?.id ?? '')).toBeUndefined();
      expect(await storage.artifacts.listForConversation(conversation.id)).toEqual([kept]);
    });

    it('rolls back with the transaction it joined', async () => {
      const storage = store();
      const { conversation, run } = await seed(storage);
      await expect(
        storage.transaction(async (tx) => {
          await tx.artifacts.record([
            {
              run_id: run.id,
              conversation_id: conversation.id,
              user_id: run.user_id,
              tool_call_id: 'c',
              path: 'x',
              title: null,
              size: 1,
              content_type: 'text/plain',
            },
          ]);
          throw new Error('undo');
        }),
      ).rejects.toThrow('undo');
      expect(await storage.artifacts.listForConversation(conversation.id)).toEqual([]);
    });
  });

  describe('attachments', () => {
    it('creates, reads and lists attachments per conversation, oldest first', async () => {
      const storage = store();
      const { conversation, other } = await seed(storage);
      const one = await storage.attachments.create({
        conversation_id: conversation.id,
        user_id: conversation.user_id,
        name: 'report.pdf',
        path: 'uploads/report.pdf',
        size: 12_345,
        content_type: 'application/pdf',
      });
      expect(one).toMatchObject({
        name: 'report.pdf',
        path: 'uploads/report.pdf',
        size: 12_345,
        content_type: 'application/pdf',
      });
      expect(one.id.startsWith('att_')).toBe(true);
      const two = await storage.attachments.create({
        ...one,
        name: 'report-1.pdf',
        path: 'uploads/report-1.pdf',
        size: 0,
      });
      expect(await storage.attachments.get(one.id)).toEqual(one);
      expect(await storage.attachments.get('att_missing')).toBeUndefined();
      const oldestFirst = [one, two].sort(
        (a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id),
      );
      expect(await storage.attachments.listForConversation(conversation.id)).toEqual(oldestFirst);
      expect(await storage.attachments.listForConversation(other.id)).toEqual([]);
    });
  });
}
