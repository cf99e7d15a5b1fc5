import { describe, expect, it } from 'vitest';
import type { Storage } from '../../../src/core/ports/storage.js';
import type { Run } from '../../../src/core/records/run.js';
import { walkRunTo } from '../../helpers/walk-run-to.js';

/*
 * A model's turn carries the usage of the call that produced it, and a run's settled usage is the sum over
 * its turns (docs/usage.md); part of the storage contract (called from storage.contract.ts with the store under
 * test and a way to make a run on a thread of its own, `sameThread` another run on that run's thread).
 */
export function describeMessageUsageContract(
  store: () => Storage,
  makeRun: (sameThread?: Run) => Promise<Run>,
): void {
  describe('message usage', () => {
    it("stores a turn's usage with its first message only, and reads it back", async () => {
      const storage = store();
      const run = await makeRun();
      const written = await storage.messages.appendSteps(run.thread_id, run.id, [
        { step: 0, messages: [{ role: 'user', content: 'hi' }] },
        {
          step: 1,
          messages: [
            { role: 'assistant', content: 'one' },
            { role: 'assistant', content: 'not a turn of its own' },
          ],
          usage: { input_tokens: 30, output_tokens: 4 },
        },
      ]);
      expect(written.map((message) => message.usage)).toEqual([
        null,
        { input_tokens: 30, output_tokens: 4 },
        null,
      ]);
      expect(await storage.messages.list(run.thread_id)).toEqual(written);
    });

    it('sums what each run settled over its turns, by thread, in one read of many runs', async () => {
      const storage = store();
      const first = await makeRun();
      // One active run per thread: the first ends before the thread's next run starts.
      await walkRunTo(storage, first, 'completed');
      const second = await makeRun(first);
      const elsewhere = await makeRun();
      const idle = await makeRun();
      const turn = (content: string, input: number, output: number) => ({
        step: 1,
        messages: [{ role: 'assistant' as const, content }],
        usage: { input_tokens: input, output_tokens: output },
      });
      // Two attempts of the first run wrote a turn each; the second run of the thread wrote one of its own.
      await storage.messages.appendSteps(first.thread_id, first.id, [turn('a', 100, 10)]);
      await storage.messages.appendBatches([
        { threadId: first.thread_id, runId: first.id, parts: [turn('b', 120, 20)] },
        { threadId: elsewhere.thread_id, runId: elsewhere.id, parts: [turn('c', 7, 1)] },
      ]);
      await storage.messages.appendSteps(second.thread_id, second.id, [
        { step: 0, messages: [{ role: 'user', content: 'no usage' }] },
        turn('d', 50, 5),
      ]);
      const settled = await storage.messages.settledUsageOf([first, second, elsewhere, idle]);
      expect(settled.get(first.id)).toEqual({
        input_tokens: 220,
        output_tokens: 30,
        total_tokens: 250,
        model_calls: 2,
        aborted_model_calls: 0,
      });
      expect(settled.get(second.id)?.total_tokens).toBe(55);
      expect(settled.get(elsewhere.id)?.model_calls).toBe(1);
      expect(settled.has(idle.id)).toBe(false);
      expect((await storage.messages.settledUsageOf([])).size).toBe(0);
      // Only the runs asked about, even on a thread they share.
      expect([...(await storage.messages.settledUsageOf([second])).keys()]).toEqual([second.id]);
    });
  });
}
