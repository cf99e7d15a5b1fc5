import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Storage } from '../../../core/ports/storage.js';
import {
  QUICK,
  runningParent,
  useSubagentWorld,
} from '../../../../test/helpers/runtime/use-subagent-world.js';
import { listChildRuns } from './list-child-runs.js';

const setup = useSubagentWorld();

afterEach(() => vi.restoreAllMocks());

const READERS = ['runs', 'events', 'budgets', 'agents', 'conversations', 'messages'] as const;

/**
 * How many repository calls the status panel made while `work` ran: the children execute meanwhile, so only
 * calls with listChildRuns on their (async) stack count.
 */
async function callsDuring(storage: Storage, work: () => Promise<unknown>): Promise<number> {
  let calls = 0;
  for (const name of READERS) {
    const proto = Object.getPrototypeOf(storage[name]) as Record<string, unknown>;
    for (const method of Object.getOwnPropertyNames(proto)) {
      if (method === 'constructor' || typeof proto[method] !== 'function') continue;
      const original = proto[method] as (...args: unknown[]) => unknown;
      vi.spyOn(proto as Record<string, (...args: unknown[]) => unknown>, method).mockImplementation(function (
        this: unknown,
        ...args: unknown[]
      ) {
        if (new Error().stack?.includes('listChildRuns') === true) calls += 1;
        return original.apply(this, args);
      });
    }
  }
  await work();
  vi.restoreAllMocks();
  return calls;
}

describe('the status panel', () => {
  it('reads as often for five children as for two, and shows each with its progress and budget', async () => {
    const { h, user, helper, conversation } = await setup({
      helper: QUICK,
      mainConfig: { budget: { model_calls: 100 } },
    });
    const parent = await runningParent(h, user.id, conversation.id);
    const start = async (n: number) => {
      const started = await h.subagents.start({
        creatorRunId: parent.id,
        userId: user.id,
        subagent: helper,
        description: `part ${n}`,
        toolCallId: `call-${n}`,
      });
      expect(started.kind).toBe('started');
    };
    for (const n of [1, 2]) await start(n);
    const actor = { id: user.id, role: 'member' as const };
    const withTwo = await callsDuring(h.storage, () =>
      listChildRuns(h.storage, h.runtime.runViews, actor, conversation.id),
    );
    for (let n = 3; n <= 5; n++) await start(n);
    let entries: Awaited<ReturnType<typeof listChildRuns>> = [];
    const withFive = await callsDuring(h.storage, async () => {
      entries = await listChildRuns(h.storage, h.runtime.runViews, actor, conversation.id);
    });
    expect(withFive).toBe(withTwo);
    expect(entries.map((entry) => entry.description)).toEqual(
      Array.from({ length: 5 }, (_, index) => `part ${index + 1}`),
    );
    const first = entries[0];
    expect(first).toMatchObject({ parent_run_id: parent.id, slug: 'helper', kind: 'subagent' });
    // Each child has the ledger carved for it and the progress of its own events.
    expect(first?.budget?.limits.model_calls).toBeGreaterThan(0);
    const ended = await h.runs.await(actor, first?.run_id ?? '', 10_000);
    expect(ended.run.status).toBe('completed');
    const again = await listChildRuns(h.storage, h.runtime.runViews, actor, conversation.id);
    expect(again[0]?.progress.items.at(-1)).toMatchObject({
      kind: 'assistant_message',
      content: 'done: part 1',
    });
    expect(again[0]?.result).toEqual({ output: 'done: part 1', error: null });
  });
});
