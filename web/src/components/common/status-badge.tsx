import type { WorkerLost } from '../../api/types.ts';
import { workerLostText } from '../../lib/run-phase.ts';
import { presentStatus } from '../../lib/run-status.ts';

export interface StatusBadgeProps {
  status: string;
  /** A pending run that had started: it waits to be resumed (see `isWaitingToResume`). */
  resuming?: boolean;
  /** An expired lease holds the run: nobody works on it (see `workerLostOf`). */
  workerLost?: WorkerLost | null;
  /** Says more than the status: what an `input_required` run waits for. */
  label?: string;
}

/** A run status with its own glyph and label; `data-status` carries the raw value for tests and styling. */
export function StatusBadge({ status, resuming = false, workerLost = null, label }: StatusBadgeProps) {
  const presentation = workerLost
    ? { label: workerLostText(workerLost), icon: '⚠', tone: 'attention' as const }
    : resuming
      ? { label: 'Waiting to resume', icon: '⏸', tone: 'attention' as const }
      : { ...presentStatus(status), ...(label ? { label } : {}) };
  const phase = workerLost ? 'worker-lost' : resuming ? 'resuming' : undefined;
  return (
    <span
      className={`status-badge tone-${presentation.tone}`}
      data-status={status}
      data-phase={phase}
      title={
        workerLost
          ? `${status}: its worker stopped renewing its lease at ${workerLost.since}`
          : resuming
            ? `${status}: waiting for a worker to resume it`
            : status
      }
    >
      <span className={`status-icon${status === 'running' && !phase ? ' spin' : ''}`} aria-hidden="true">
        {presentation.icon}
      </span>
      <span className="status-label">{presentation.label}</span>
    </span>
  );
}
