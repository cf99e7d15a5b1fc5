import { TroupeError } from './errors.js';
import type { RunStatus } from './records/run.js';

/**
 * Allowed run transitions (docs/runs.md#transitions, plus `running` ⇄ `input_required`). Terminal statuses have no way out:
 * a finished run is continued by a new run, never by reopening it.
 */
const TRANSITIONS: Readonly<Record<RunStatus, readonly RunStatus[]>> = {
  pending: ['running', 'cancelled', 'failed'],
  // `pending` again: the lease was released for a retry or reclaimed after a worker died.
  running: ['input_required', 'cancel_requested', 'completed', 'failed', 'interrupted', 'pending'],
  // Parked while a human answers; no worker holds it, so a cancel ends it at once.
  input_required: ['running', 'pending', 'cancelled', 'failed'],
  cancel_requested: ['cancelled', 'failed'],
  completed: [],
  failed: [],
  cancelled: [],
  interrupted: [],
};

export function canTransition(from: RunStatus, to: RunStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function assertTransition(from: RunStatus, to: RunStatus): void {
  if (!canTransition(from, to)) {
    throw new TroupeError('invalid_transition', `A run cannot go from ${from} to ${to}`, {
      details: { from, to },
    });
  }
}

/** Every status a run may be in right before it becomes `to`: the guard of a compare-and-set write. */
export function sourcesOf(to: RunStatus): RunStatus[] {
  return (Object.keys(TRANSITIONS) as RunStatus[]).filter((from) => TRANSITIONS[from].includes(to));
}
