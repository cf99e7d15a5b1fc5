import type { Storage } from '../../../src/core/ports/storage.js';

/** Counts the inserts into run streams (one per append call), in transactions or not, by the runs of each. */
export function countingInserts(storage: Storage, inserts: string[]): Storage {
  const counting = (tx: Storage): Storage => ({
    ...tx,
    // A method of the storage's class: the spread leaves it behind.
    commitBehind: (statements) => tx.commitBehind(statements),
    events: {
      ...tx.events,
      append: (event) => (inserts.push(event.run_id), tx.events.append(event)),
      appendMany: (runId, events) => (inserts.push(runId), tx.events.appendMany(runId, events)),
      appendBatches: (batches) => (
        inserts.push(batches.map((batch) => batch.run_id).join('+')),
        tx.events.appendBatches(batches)
      ),
    },
  });
  return {
    ...counting(storage),
    transaction: (work) => storage.transaction((tx) => work(counting(tx))),
    sharedCommitTransaction: (work) => storage.sharedCommitTransaction((tx) => work(counting(tx))),
  };
}
