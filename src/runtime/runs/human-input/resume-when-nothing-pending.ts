import type { RunQueue } from '../../../core/ports/run-queue.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Run } from '../../../core/records/run.js';

/**
 * Hands a parked run back to a worker once none of its human inputs (approvals, questions) is pending.
 * Called by whoever decides or answers one, and by the worker right after it parked the run: whichever of
 * the two comes second sees both the decision and `input_required`, so a reply that lands while the run is
 * still parking is not lost. The compare-and-set lets only one of them resume it.
 */
export async function resumeWhenNothingPending(
  storage: Storage,
  queue: RunQueue,
  runId: string,
): Promise<Run | undefined> {
  const pending = (await storage.approvals.listForRun(runId)).some((entry) => entry.status === 'pending');
  if (pending) return undefined;
  const resumed = await storage.runs.update(runId, { status: ['input_required'] }, { status: 'pending' });
  if (resumed) await queue.enqueue(resumed.id);
  return resumed;
}
