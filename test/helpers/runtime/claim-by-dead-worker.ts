import type { Storage } from '../../../src/core/ports/storage.js';

/**
 * Test setup: a worker claimed the pending run and died; its lease is already over, so the reconciler finds
 * it (what it had checkpointed is for the test to append).
 */
export async function claimByDeadWorker(storage: Storage, runId: string): Promise<void> {
  await storage.runs.update(
    runId,
    { status: ['pending'] },
    {
      status: 'running',
      worker_id: 'wrk_dead',
      lease_expires_at: new Date(Date.now() - 1000).toISOString(),
      started_at: new Date().toISOString(),
      attempt: 1,
    },
  );
}
