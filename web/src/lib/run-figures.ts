import type { RunEvent } from '../api/types.ts';
import type { RunClock } from './run-phase.ts';

/*
 * The console shows the server's figures for a run (docs/usage.md): its usage over every attempt, live while
 * it runs, and whether its worker is lost. It never adds them up from events (an event and a read of the
 * run could then count one call twice); it reads the run again when an event says a figure moved.
 */

/** A model call settled: its turn committed with this event (a first `tool_call`, or a final `step`). */
export function settlesModelCall(event: RunEvent): boolean {
  if (event.type === 'tool_call') return event.payload.model_usage !== undefined;
  return event.type === 'step' && event.payload.resumed !== true;
}

interface LeasedRun extends RunClock {
  lease_expires_at?: string | null;
}

/** No closer than this: a browser clock ahead of the server's would otherwise re-read in a tight loop. */
const MIN_RECHECK_MS = 2_000;
/** While a worker is lost: how often to look for the takeover. */
const LOST_RECHECK_MS = 3_000;
/** A far lease is looked at again after this long: a browser timer longer than ~24.8 days fires at once. */
const MAX_WAIT_MS = 60 * 60_000;

/**
 * When to read the runs again to learn whether a worker was lost (or a lost one replaced): just after the
 * earliest lease of a running run expires, or soon while one is lost; null when no run is held.
 */
export function nextLeaseCheck(runs: readonly LeasedRun[], now: number): number | null {
  let next: number | null = null;
  for (const run of runs) {
    if (run.status !== 'running' && run.status !== 'cancel_requested') continue;
    const lease = run.lease_expires_at ? Date.parse(run.lease_expires_at) : Number.NaN;
    const at = run.worker_lost ? now + LOST_RECHECK_MS : Number.isNaN(lease) ? null : lease + 500;
    if (at === null) continue;
    next = Math.min(next ?? Number.POSITIVE_INFINITY, Math.max(at, now + MIN_RECHECK_MS), now + MAX_WAIT_MS);
  }
  return next;
}
