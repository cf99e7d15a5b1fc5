import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Storage } from '../../core/ports/storage.js';
import { QUICK, runningParent, useSubagentWorld } from '../../../test/helpers/runtime/use-subagent-world.js';
import { readsDuring } from '../../../test/helpers/runtime/reads-during.js';

const setup = useSubagentWorld();

afterEach(() => vi.restoreAllMocks());

/** The ids the ledgers' and the conversations' `get` were asked for while `work` ran, in any transaction. */
const ledgerAndConversationReads = (storage: Storage, work: () => Promise<unknown>) =>
  readsDuring(storage, { ledgers: ['budgets', 'get'], conversations: ['conversations', 'get'] }, work);

describe('a child start with what its creator attempt already holds', () => {
  it("reads neither the creator's conversation nor a ledger it is known not to have", async () => {
    const { h, user, helper, conversation } = await setup({ helper: QUICK });
    const parent = await runningParent(h, user.id, conversation.id);
    const start = (toolCallId: string, creator?: { conversation: typeof conversation; hasLedger: boolean }) =>
      h.subagents.start({
        creatorRunId: parent.id,
        userId: user.id,
        subagent: helper,
        description: `part ${toolCallId}`,
        toolCallId,
        ...(creator ? { creator } : {}),
      });

    const unknown = await ledgerAndConversationReads(h.storage, () => start('call-unknown'));
    expect(unknown.ledgers).toContain(parent.id);
    expect(unknown.conversations).toContain(conversation.id);

    let started: Awaited<ReturnType<typeof start>> | undefined;
    const known = await ledgerAndConversationReads(h.storage, async () => {
      started = await start('call-known', { conversation, hasLedger: false });
    });
    expect(known.ledgers).not.toContain(parent.id);
    expect(known.conversations).not.toContain(conversation.id);
    // The child's conversation still takes the creator's project, as a read one would.
    if (started?.kind !== 'started') throw new Error('the start was refused');
    const child = await h.storage.conversations.get(started.run.conversation_id);
    expect(child?.project_id).toBe(conversation.project_id);
    expect(child?.metadata).toMatchObject({ parent_conversation_id: conversation.id });
  });
});
