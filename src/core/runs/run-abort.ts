import type { RunError } from '../records/run.js';

/**
 * Why a run's abort signal fired; decides what the executor writes afterwards. `budget` and `inactive` carry
 * the error the run ends with (failed `budget_exhausted`, interrupted `inactivity_timeout`).
 */
export type RunAbortKind = 'cancel' | 'lease_lost' | 'shutdown' | 'budget' | 'inactive';

export class RunAbortError extends Error {
  readonly kind: RunAbortKind;
  readonly error: RunError | undefined;

  constructor(kind: RunAbortKind, error?: RunError) {
    super(error?.message ?? `run aborted: ${kind}`);
    this.name = 'RunAbortError';
    this.kind = kind;
    this.error = error;
  }
}

export function abortKindOf(signal: AbortSignal): RunAbortKind | undefined {
  return signal.aborted && signal.reason instanceof RunAbortError ? signal.reason.kind : undefined;
}

export function abortErrorOf(signal: AbortSignal): RunAbortError | undefined {
  return signal.aborted && signal.reason instanceof RunAbortError ? signal.reason : undefined;
}
