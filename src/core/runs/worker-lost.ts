import type { Run, WorkerLost } from '../records/run.js';

/** How this deployment takes over expired leases (`TROUPE_LEASE_MS`, `TROUPE_LEASE_EXPIRY`). */
export interface LeaseTakeover {
  /** The reconciler's period. */
  everyMs: number;
  policy: 'resume' | 'fail';
}

/** Whether `run` is held by a lease that expired at `now`: null while its worker renews, or none holds it. */
export function workerLostOf(
  run: Pick<Run, 'status' | 'worker_id' | 'lease_expires_at'>,
  now: string,
  takeover: LeaseTakeover,
): WorkerLost | null {
  if (run.status !== 'running' && run.status !== 'cancel_requested') return null;
  const expiry = run.lease_expires_at;
  if (run.worker_id === null || expiry === null || expiry > now) return null;
  return {
    since: expiry,
    takeover_by: new Date(Date.parse(expiry) + takeover.everyMs).toISOString(),
    then: run.status === 'cancel_requested' ? 'cancel' : takeover.policy,
  };
}
