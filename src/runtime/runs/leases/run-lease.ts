import { isoAfter, isoNow, type Clock } from '../../../core/clock.js';
import type { ClaimTerms, RunAttemptContext, Storage } from '../../../core/ports/storage.js';
import type { Run } from '../../../core/records/run.js';
import type { RunAbortKind } from '../../../core/runs/run-abort.js';
import { isStorageOutage, nextOutageWait, sleep, wroteNothing } from '../../../core/runs/storage-outage.js';

export interface RunLeaseDeps {
  storage: Storage;
  clock: Clock;
  workerId: string;
  leaseMs: number;
}

export interface RunLease {
  /**
   * `pending` → `running` under this worker's lease, or undefined when another worker or an end won. Tried again
   * through a database outage (up to two leases: by then the reconciler queues the run again), so the queue's
   * delivery is not lost to it.
   */
  claim(runId: string): Promise<Run | undefined>;
  /**
   * `claim`, and the run's attempt context read with it (`runs.claimWithContext`); `context` is undefined when
   * an outage left the claim's outcome unknown and the run was read back on its own.
   */
  claimWithContext(runId: string): Promise<{ run: Run; context?: RunAttemptContext } | undefined>;
  /** The terms of a claim made now, for a run its creator inserts already claimed (`runs.insert`). */
  terms(): ClaimTerms;
  /**
   * Renews the lease of a claimed run until `release` is called. The heartbeat is the run's live status: it
   * ends the run's work (`onEnd`) when the lease is lost or a cancel was committed, so the loop reads the abort
   * signal instead of the run row at every step.
   */
  hold(run: Run, onEnd: (kind: Extract<RunAbortKind, 'cancel' | 'lease_lost'>) => void): HeldLease;
}

export interface HeldLease {
  release(): void;
  /**
   * Renews now: true while the run is still this worker's to work on; false once it is not (`onEnd` was told);
   * throws what storage threw.
   */
  renewNow(): Promise<boolean>;
  /** When the lease last written expires (epoch ms): past it, another worker may take the run. */
  expiresAt(): number;
}

/** The worker's side of run ownership: one compare-and-set claim, then a heartbeat (docs/interfaces.md, crash resume). */
export function createRunLease(deps: RunLeaseDeps): RunLease {
  const { storage, clock } = deps;
  const terms = (): ClaimTerms => [deps.workerId, isoAfter(clock, deps.leaseMs), isoNow(clock)];

  /** `write` (a claim) tried through an outage; `ran` maps the run an unknown outcome left this worker's. */
  async function claimThrough<T>(
    runId: string,
    write: (terms: ClaimTerms) => Promise<T | undefined>,
    ran: (run: Run) => T,
  ): Promise<T | undefined> {
    const giveUpAt = clock.now().getTime() + 2 * deps.leaseMs;
    let unknown = false;
    for (let wait = nextOutageWait(undefined); ; wait = nextOutageWait(wait)) {
      try {
        const claimed = await write(terms());
        if (claimed || !unknown) return claimed;
        // A try whose outcome is unknown may have claimed it: then it holds this worker's id.
        const run = await storage.runs.get(runId);
        return run?.status === 'running' && run.worker_id === deps.workerId ? ran(run) : undefined;
      } catch (error) {
        if (!isStorageOutage(error) || clock.now().getTime() > giveUpAt) throw error;
        unknown ||= !wroteNothing(error);
        await sleep(wait);
      }
    }
  }

  return {
    claim: (runId) =>
      claimThrough(
        runId,
        (claim) => storage.runs.claim(runId, ...claim),
        (run) => run,
      ),
    claimWithContext: (runId) =>
      claimThrough(
        runId,
        (claim) => storage.runs.claimWithContext(runId, ...claim),
        (run) => ({ run }),
      ),
    terms,
    hold(run, onEnd) {
      let expiresAt =
        run.lease_expires_at === null ? clock.now().getTime() : Date.parse(run.lease_expires_at);
      const renewNow = async (): Promise<boolean> => {
        const until = isoAfter(clock, deps.leaseMs);
        const renewed = await storage.runs.update(
          run.id,
          { status: ['running', 'cancel_requested'], worker_id: deps.workerId },
          { lease_expires_at: until },
        );
        if (renewed) expiresAt = Date.parse(until);
        if (!renewed) onEnd('lease_lost');
        // The durable path for a cancel whose signal was lost.
        else if (renewed.status === 'cancel_requested') onEnd('cancel');
        return renewed?.status === 'running';
      };
      const heartbeat = setInterval(
        // A failed renewal is retried on the next beat; the lease outlives several beats.
        () => void renewNow().catch(() => undefined),
        Math.max(50, Math.floor(deps.leaseMs / 3)),
      );
      return {
        release: () => clearInterval(heartbeat),
        renewNow,
        expiresAt: () => expiresAt,
      };
    },
  };
}
