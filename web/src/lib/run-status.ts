import type { RunStatus } from '../api/types.ts';

export interface StatusPresentation {
  label: string;
  /** A text glyph found in common system fonts (DejaVu included): no icon font is loaded, no external requests. */
  icon: string;
  tone: 'idle' | 'busy' | 'attention' | 'ok' | 'bad' | 'muted';
}

/** Every status has its own icon and label; a cancelled run is never shown as completed (Yuxi did, §9.9). */
export const RUN_STATUS_PRESENTATION: Record<RunStatus, StatusPresentation> = {
  pending: { label: 'Pending', icon: '◌', tone: 'idle' },
  running: { label: 'Running', icon: '◐', tone: 'busy' },
  input_required: { label: 'Input required', icon: '⚑', tone: 'attention' },
  cancel_requested: { label: 'Cancelling', icon: '⋯', tone: 'attention' },
  completed: { label: 'Completed', icon: '✓', tone: 'ok' },
  failed: { label: 'Failed', icon: '✕', tone: 'bad' },
  cancelled: { label: 'Cancelled', icon: '⊘', tone: 'muted' },
  interrupted: { label: 'Interrupted', icon: '⚠', tone: 'bad' },
};

export function presentStatus(status: string): StatusPresentation {
  return RUN_STATUS_PRESENTATION[status as RunStatus] ?? { label: status, icon: '?', tone: 'muted' };
}
