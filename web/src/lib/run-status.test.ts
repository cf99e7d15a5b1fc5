import { describe, expect, it } from 'vitest';
import { RUN_STATUSES } from '../api/types.ts';
import { presentStatus, RUN_STATUS_PRESENTATION } from './run-status.ts';

describe('run status presentation', () => {
  it('gives every run status its own icon and label; cancelled never reads as completed', () => {
    const shown = RUN_STATUSES.map((status) => RUN_STATUS_PRESENTATION[status]);
    expect(new Set(shown.map((item) => item.icon)).size).toBe(RUN_STATUSES.length);
    expect(new Set(shown.map((item) => item.label)).size).toBe(RUN_STATUSES.length);
    expect(RUN_STATUS_PRESENTATION.cancelled.label).toBe('Cancelled');
    expect(RUN_STATUS_PRESENTATION.interrupted.label).toBe('Interrupted');
  });

  it('shows an unknown status as itself rather than guessing', () => {
    expect(presentStatus('paused')).toMatchObject({ label: 'paused', tone: 'muted' });
  });
});
