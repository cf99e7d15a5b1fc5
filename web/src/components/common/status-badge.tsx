import { presentStatus } from '../../lib/run-status.ts';

export interface StatusBadgeProps {
  status: string;
}

/** A run status with its own glyph and label; `data-status` carries the raw value for tests and styling. */
export function StatusBadge({ status }: StatusBadgeProps) {
  const presentation = presentStatus(status);
  return (
    <span className={`status-badge tone-${presentation.tone}`} data-status={status} title={status}>
      <span className={`status-icon${status === 'running' ? ' spin' : ''}`} aria-hidden="true">
        {presentation.icon}
      </span>
      <span className="status-label">{presentation.label}</span>
    </span>
  );
}
