import { presentStatus } from '../../lib/run-status.ts';

export interface StatusBadgeProps {
  status: string;
  /** A pending run that had started: it waits to be resumed (see `isWaitingToResume`). */
  resuming?: boolean;
  /** Says more than the status: what an `input_required` run waits for. */
  label?: string;
}

/** A run status with its own glyph and label; `data-status` carries the raw value for tests and styling. */
export function StatusBadge({ status, resuming = false, label }: StatusBadgeProps) {
  const presentation = resuming
    ? { label: 'Waiting to resume', icon: '⏸', tone: 'attention' as const }
    : { ...presentStatus(status), ...(label ? { label } : {}) };
  return (
    <span
      className={`status-badge tone-${presentation.tone}`}
      data-status={status}
      data-phase={resuming ? 'resuming' : undefined}
      title={resuming ? `${status}: waiting for a worker to resume it` : status}
    >
      <span className={`status-icon${status === 'running' ? ' spin' : ''}`} aria-hidden="true">
        {presentation.icon}
      </span>
      <span className="status-label">{presentation.label}</span>
    </span>
  );
}
