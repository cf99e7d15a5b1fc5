/** Why a run's abort signal fired; decides what the executor writes afterwards. */
export type RunAbortKind = 'cancel' | 'lease_lost' | 'shutdown';

export class RunAbortError extends Error {
  readonly kind: RunAbortKind;

  constructor(kind: RunAbortKind) {
    super(`run aborted: ${kind}`);
    this.name = 'RunAbortError';
    this.kind = kind;
  }
}

export function abortKindOf(signal: AbortSignal): RunAbortKind | undefined {
  return signal.aborted && signal.reason instanceof RunAbortError ? signal.reason.kind : undefined;
}
