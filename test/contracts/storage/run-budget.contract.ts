import { describe, expect, it } from 'vitest';
import { zeroAmounts } from '../../../src/core/budgets/budget.js';
import type { Storage } from '../../../src/core/ports/storage.js';
import type { Run } from '../../../src/core/records/run.js';
import { walkRunTo } from '../../helpers/walk-run-to.js';

/*
 * Budget ledgers and the stop gate's lineage read, part of the storage contract (called from
 * storage.contract.ts with the store under test and a way to make runs, optionally under a parent).
 */
export function describeRunBudgetContract(
  store: () => Storage,
  makeRun: (parent?: Run) => Promise<Run>,
): void {
  describe('budgets', () => {
    it('admits a charge only while it fits every limit and the deadline, in one conditional write', async () => {
      const storage = store();
      const run = await makeRun();
      await storage.budgets.insert({
        run_id: run.id,
        parent_run_id: null,
        limits: { model_calls: 2, tokens: 100 },
        deadline_at: '2030-01-01T00:00:10.000Z',
        reserved: zeroAmounts(),
      });
      const charge = { tokens: 40, model_calls: 1, tool_calls: 0 };
      const before = '2030-01-01T00:00:00.000Z';
      expect((await storage.budgets.admit(run.id, charge, before))?.used).toEqual({
        tokens: 40,
        model_calls: 1,
        tool_calls: 0,
      });
      // Two concurrent spenders of the last call: exactly one gets it.
      const raced = await Promise.all([
        storage.budgets.admit(run.id, charge, before),
        storage.budgets.admit(run.id, charge, before),
      ]);
      expect(raced.filter((ledger) => ledger !== undefined)).toHaveLength(1);
      expect(
        await storage.budgets.admit(
          run.id,
          { tokens: 0, model_calls: 0, tool_calls: 1 },
          '2030-01-01T00:00:10.000Z',
        ),
      ).toBeUndefined();
      await storage.budgets.settle(run.id, { tokens: 50 });
      expect((await storage.budgets.get(run.id))?.used).toEqual({
        tokens: 130,
        model_calls: 2,
        tool_calls: 0,
      });
      expect(await storage.budgets.admit(newRunless(), charge, before)).toBeUndefined();
    });

    it('reads the ledgers of many runs at once, skipping runs without one', async () => {
      const storage = store();
      const [a, b, none] = [await makeRun(), await makeRun(), await makeRun()];
      for (const run of [a, b]) {
        await storage.budgets.insert({
          run_id: run.id,
          parent_run_id: null,
          limits: { tool_calls: 3 },
          deadline_at: null,
          reserved: zeroAmounts(),
        });
      }
      const ledgers = await storage.budgets.getMany([a.id, none.id, b.id, a.id]);
      expect(ledgers.map((ledger) => ledger.run_id).sort()).toEqual([a.id, b.id].sort());
      expect(ledgers.find((ledger) => ledger.run_id === b.id)).toEqual(await storage.budgets.get(b.id));
      expect(await storage.budgets.getMany([])).toEqual([]);
    });

    it('carves from what remains, gives back on release, and lists a tree', async () => {
      const storage = store();
      const parent = await makeRun();
      const child = await makeRun(parent);
      await storage.budgets.insert({
        run_id: parent.id,
        parent_run_id: null,
        limits: { tool_calls: 10 },
        deadline_at: null,
        reserved: zeroAmounts(),
      });
      const reserve = { tokens: 0, model_calls: 0, tool_calls: 6 };
      expect((await storage.budgets.carve(parent.id, reserve))?.carved.tool_calls).toBe(6);
      expect(await storage.budgets.carve(parent.id, reserve)).toBeUndefined();
      await storage.budgets.insert({
        run_id: child.id,
        parent_run_id: parent.id,
        limits: { tool_calls: 6 },
        deadline_at: null,
        reserved: reserve,
      });
      await storage.budgets.release(parent.id, { tokens: 0, model_calls: 0, tool_calls: 4 });
      expect((await storage.budgets.get(parent.id))?.carved.tool_calls).toBe(2);
      expect(
        (await storage.budgets.listByRoot(parent.root_run_id)).map((ledger) => ledger.run_id).sort(),
      ).toEqual([parent.id, child.id].sort());
    });

    it('reads the statuses of a run and every run above it, own first', async () => {
      const storage = store();
      const root = await makeRun();
      const child = await makeRun(root);
      const grandchild = await makeRun(child);
      await walkRunTo(storage, root, 'cancel_requested');
      await walkRunTo(storage, grandchild, 'running');
      expect(await storage.runs.lineageStatuses(grandchild.id)).toEqual([
        'running',
        'pending',
        'cancel_requested',
      ]);
      expect(await storage.runs.lineageStatuses('run_missing')).toEqual([]);
    });
  });
}

function newRunless(): string {
  return 'run_without_ledger';
}
