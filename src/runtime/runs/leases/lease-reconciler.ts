import { isoNow, type Clock } from '../../../core/clock.js';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Run } from '../../../core/records/run.js';
import { CANCELLED } from '../cancel/request-cancel.js';
import type { RunEndings } from '../run-endings.js';
import { alignLedger, lostAttemptUsage } from '../../usage/lost-attempt-usage.js';

export interface LeaseReconcilerDeps {
  storage: Storage;
  endings: RunEndings;
  queue: RunQueue;
  clock: Clock;
  leaseMs: number;
  /** `resume`: the run goes back to pending and continues from its last checkpoint; `fail`: it fails. */
  policy: 'resume' | 'fail';
}

export interface ReconcileReport {
  resumed: string[];
  failed: string[];
  cancelled: string[];
  requeued: string[];
}

/** How often a reconciler passes: a lease that expired is taken over within this long (docs/usage.md). */
export function reconcilePeriodMs(leaseMs: number): number {
  return Math.max(1000, Math.floor(leaseMs / 2));
}

export const LEASE_EXPIRED_MESSAGE =
  'The worker executing this run stopped renewing its lease; the outcome of tool calls in flight is unknown';

/**
 * Takes back runs whose worker vanished (expired lease) and re-enqueues pending runs whose enqueue may
 * have been lost (docs/runs.md#leases-and-reconciliation). Every takeover is a compare-and-set on the expired lease, so a worker that
 * was only slow and renews in time keeps its run.
 */
export function createLeaseReconciler(deps: LeaseReconcilerDeps) {
  const { storage, endings, clock } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<ReconcileReport> | undefined;

  /** `staleAfterMs`: how old a pending run must be to be queued again (its enqueue may have been lost). */
  async function reconcileOnce(staleAfterMs: number): Promise<ReconcileReport> {
    const report: ReconcileReport = { resumed: [], failed: [], cancelled: [], requeued: [] };
    const now = isoNow(clock);
    for (const run of await storage.runs.listExpiredLeases(now, 100)) {
      await takeOver(run, now, report);
    }
    const stale = new Date(clock.now().getTime() - staleAfterMs).toISOString();
    for (const run of await storage.runs.listStalePending(stale, 100)) {
      await deps.queue.enqueue(run.id);
      report.requeued.push(run.id);
    }
    return report;
  }

  async function takeOver(run: Run, now: string, report: ReconcileReport): Promise<void> {
    const expired = { status: [run.status], worker_id: run.worker_id, lease_expired_at: now };
    // The dead worker stored no usage: the takeover stores what its turns and events show it spent.
    const usage = await lostAttemptUsage(storage, run);
    if (run.status === 'cancel_requested') {
      const cancelled = await endings.finish({
        runId: run.id,
        expect: expired,
        write: { status: 'cancelled', error: run.error ?? CANCELLED, usage },
      });
      if (cancelled) {
        report.cancelled.push(run.id);
        await alignLedger(storage, run.id, usage);
        await endings.closeSubtree(cancelled);
      }
      return;
    }
    if (deps.policy === 'resume') {
      const released = await storage.runs.update(run.id, expired, {
        status: 'pending',
        worker_id: null,
        lease_expires_at: null,
        usage,
      });
      if (released) {
        report.resumed.push(run.id);
        await alignLedger(storage, run.id, usage);
        await deps.queue.enqueue(run.id);
      }
      return;
    }
    const failed = await endings.finish({
      runId: run.id,
      expect: expired,
      write: {
        status: 'failed',
        error: { type: 'worker_lease_expired', message: LEASE_EXPIRED_MESSAGE },
        usage,
      },
    });
    if (failed) {
      report.failed.push(run.id);
      await alignLedger(storage, run.id, usage);
      await endings.closeSubtree(failed);
    }
  }

  let stopWatchingQueue: (() => void) | undefined;
  /**
   * A queue that is back after an outage may have lost its waiting jobs (a Redis that restarted empty): every
   * pending run is queued again at once, not after 2 leases (a run whose job survived adds nothing).
   */
  function afterQueueOutage(): void {
    void (async () => {
      await running?.catch(() => undefined);
      running ??= reconcileOnce(0).finally(() => (running = undefined));
      await running;
    })().catch(() => undefined);
  }

  return {
    /** One pass; concurrent callers share the pass in progress. */
    reconcileOnce(): Promise<ReconcileReport> {
      running ??= reconcileOnce(2 * deps.leaseMs).finally(() => (running = undefined));
      return running;
    },
    start(intervalMs = reconcilePeriodMs(deps.leaseMs)): void {
      timer ??= setInterval(() => void this.reconcileOnce().catch(() => undefined), intervalMs);
      timer.unref();
      stopWatchingQueue ??= deps.queue.onRestored?.(afterQueueOutage);
    },
    stop(): void {
      if (timer) clearInterval(timer);
      timer = undefined;
      stopWatchingQueue?.();
      stopWatchingQueue = undefined;
    },
  };
}

export type LeaseReconciler = ReturnType<typeof createLeaseReconciler>;
