import { describe, expect, it } from 'vitest';
import type { Storage } from '../../../src/core/ports/storage.js';
import type { Run } from '../../../src/core/records/run.js';

/*
 * The tool-call journal's `started` marks (docs/effects-and-forks.md#the-journal); part of the storage contract
 * (called from storage.contract.ts with the store under test and a way to make a run).
 */
export function describeToolCallJournalContract(
  store: () => Storage,
  makeRun: (sameThread?: Run) => Promise<Run>,
): void {
  describe('tool-call journal', () => {
    it('reads back the started marks of a run, once each, and none of another run', async () => {
      const storage = store();
      const run = await makeRun();
      const other = await makeRun();
      expect(await storage.toolCalls.startedAmong(run.id, ['call_a'])).toEqual(new Set());
      await storage.toolCalls.markStarted(run.id, 'call_a');
      // A second mark (a call made again after an outage) is no error and changes nothing.
      await storage.toolCalls.markStarted(run.id, 'call_a');
      await storage.toolCalls.markStarted(run.id, 'call_b');
      await storage.toolCalls.markStarted(other.id, 'call_c');
      expect(await storage.toolCalls.startedAmong(run.id, ['call_a', 'call_b', 'call_c', 'call_d'])).toEqual(
        new Set(['call_a', 'call_b']),
      );
      expect(await storage.toolCalls.startedAmong(run.id, [])).toEqual(new Set());
      expect(await storage.toolCalls.startedAmong(other.id, ['call_a', 'call_c'])).toEqual(
        new Set(['call_c']),
      );
    });

    it('writes a mark inside a transaction only when it commits', async () => {
      const storage = store();
      const run = await makeRun();
      await expect(
        storage.transaction(async (tx) => {
          await tx.toolCalls.markStarted(run.id, 'call_rolled_back');
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
      await storage.sharedCommitTransaction((tx) => tx.toolCalls.markStarted(run.id, 'call_committed'));
      expect(await storage.toolCalls.startedAmong(run.id, ['call_rolled_back', 'call_committed'])).toEqual(
        new Set(['call_committed']),
      );
    });
  });
}
