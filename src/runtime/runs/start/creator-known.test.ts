import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Storage } from '../../../core/ports/storage.js';
import {
  QUICK,
  runningParent,
  useSubagentWorld,
} from '../../../../test/helpers/runtime/use-subagent-world.js';
import { readsDuring } from '../../../../test/helpers/runtime/reads-during.js';

const setup = useSubagentWorld();

afterEach(() => vi.restoreAllMocks());

/** The ids the ledgers', the conversations' and the attempt contexts' reads were asked for while `work` ran. */
const readsOf = (storage: Storage, work: () => Promise<unknown>) =>
  readsDuring(
    storage,
    {
      ledgers: ['budgets', 'get'],
      conversations: ['conversations', 'get'],
      contexts: ['runs', 'attemptContext'],
    },
    work,
  );

describe('a child start with what its creator attempt already holds', () => {
  it("reads the creator's conversation with the parent, and no ledger it is known not to have", async () => {
    const { h, user, helper, conversation } = await setup({ helper: QUICK });
    const parent = await runningParent(h, user.id, conversation.id);
    const start = (toolCallId: string, creator?: { hasLedger: boolean }) =>
      h.subagents.start({
        creatorRunId: parent.id,
        userId: user.id,
        subagent: helper,
        description: `part ${toolCallId}`,
        toolCallId,
        ...(creator ? { creator } : {}),
      });

    const unknown = await readsOf(h.storage, () => start('call-unknown'));
    expect(unknown.ledgers).toContain(parent.id);
    expect(unknown.conversations).not.toContain(conversation.id);

    let started: Awaited<ReturnType<typeof start>> | undefined;
    const known = await readsOf(h.storage, async () => {
      started = await start('call-known', { hasLedger: false });
    });
    expect(known.ledgers).not.toContain(parent.id);
    expect(known.conversations).not.toContain(conversation.id);
    // The child's conversation still takes the creator's project, as a read one would.
    if (started?.kind !== 'started') throw new Error('the start was refused');
    const child = await h.storage.conversations.get(started.run.conversation_id);
    expect(child?.project_id).toBe(conversation.project_id);
    expect(child?.metadata).toMatchObject({ parent_conversation_id: conversation.id });
  });

  it("hands the child's first attempt the agent as its start read it, not as the creator's roster had it", async () => {
    const { h, user, helper, conversation } = await setup({ helper: QUICK });
    const parent = await runningParent(h, user.id, conversation.id);
    const start = (toolCallId: string) =>
      h.subagents.start({
        creatorRunId: parent.id,
        creatorThreadId: parent.thread_id,
        userId: user.id,
        subagent: helper,
        description: `part ${toolCallId}`,
        toolCallId,
      });
    const ended = async (runId: string) => (await h.runs.await(user, runId, 10_000)).run;

    let first: Awaited<ReturnType<typeof start>> | undefined;
    const reads = await readsOf(h.storage, async () => {
      first = await start('call-fresh');
      if (first.kind !== 'started') throw new Error('the start was refused');
      expect(await ended(first.run.id)).toMatchObject({
        status: 'completed',
        output: 'done: part call-fresh',
      });
    });
    // Agent, user, conversation, project and ledger came with the start: the attempt read none of them.
    expect(reads.contexts).toEqual([]);

    // `helper` is the roster's row, read before the deletion; the start reads the agent again.
    await h.storage.agents.softDelete(helper.id, new Date().toISOString());
    const late = await start('call-after-delete');
    if (late.kind !== 'started') throw new Error('the start was refused');
    expect(await ended(late.run.id)).toMatchObject({
      status: 'failed',
      error: expect.objectContaining({ type: 'agent_not_found' }) as unknown,
    });
  });
});
