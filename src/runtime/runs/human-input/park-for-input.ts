import type { Storage } from '../../../core/ports/storage.js';
import type { Run, TokenUsage } from '../../../core/records/run.js';

/**
 * Parks a running run that waits for a human (`input_required`, no worker, no lease). A decision that
 * landed while the run was still running found nothing to resume (the decision path only resumes parked
 * runs), so the park looks at the decisions in the same transaction: when none is pending any more, the run
 * goes straight back to `pending` for its worker to carry on. The run row is written FIRST, so on
 * PostgreSQL a decision's resume (a compare-and-set on that row) waits for this transaction and then sees
 * `input_required`, and on SQLite the two writers are serialised: either this read sees the decision, or
 * the decision path sees the parked run. Returns undefined when the run was no longer this worker's to park.
 */
export async function parkForInput(
  storage: Storage,
  runId: string,
  workerId: string,
  usage: TokenUsage | null,
): Promise<Run | undefined> {
  return storage.transaction(async (tx) => {
    const parked = await tx.runs.update(
      runId,
      { status: ['running'], worker_id: workerId },
      {
        status: 'input_required',
        worker_id: null,
        lease_expires_at: null,
        usage,
      },
    );
    if (!parked) return undefined;
    const stillPending = (await tx.approvals.listForRun(runId)).some(
      (approval) => approval.status === 'pending',
    );
    if (stillPending) return parked;
    return (await tx.runs.update(runId, { status: ['input_required'] }, { status: 'pending' })) ?? parked;
  });
}
