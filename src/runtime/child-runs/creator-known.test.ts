import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Storage } from '../../core/ports/storage.js';
import { QUICK, runningParent, useSubagentWorld } from '../../../test/helpers/runtime/use-subagent-world.js';

const setup = useSubagentWorld();

afterEach(() => vi.restoreAllMocks());

/**
 * The ids each repository's `get` was asked for while `work` ran, in any transaction: a transaction's
 * repositories are instances of the same classes, so the spies sit on their prototypes.
 */
async function readsDuring(
  storage: Storage,
  work: () => Promise<unknown>,
): Promise<{ ledgers: unknown[]; conversations: unknown[] }> {
  const ledgers = vi.spyOn(Object.getPrototypeOf(storage.budgets) as Storage['budgets'], 'get');
  const conversations = vi.spyOn(
    Object.getPrototypeOf(storage.conversations) as Storage['conversations'],
    'get',
  );
  await work();
  const seen = {
    ledgers: ledgers.mock.calls.map(([id]) => id),
    conversations: conversations.mock.calls.map(([id]) => id),
  };
  vi.restoreAllMocks();
  return seen;
}

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

    const unknown = await readsDuring(h.storage, () => start('call-unknown'));
    expect(unknown.ledgers).toContain(parent.id);
    expect(unknown.conversations).toContain(conversation.id);

    let started: Awaited<ReturnType<typeof start>> | undefined;
    const known = await readsDuring(h.storage, async () => {
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
