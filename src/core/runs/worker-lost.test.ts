import { describe, expect, it } from 'vitest';
import { workerLostOf } from './worker-lost.js';

const takeover = { everyMs: 15_000, policy: 'resume' as const };
const held = { status: 'running' as const, worker_id: 'wrk_1', lease_expires_at: '2030-01-01T00:00:30.000Z' };

describe('workerLostOf', () => {
  it('is null while the lease runs, and says when a takeover is due once it expired', () => {
    expect(workerLostOf(held, '2030-01-01T00:00:29.999Z', takeover)).toBeNull();
    expect(workerLostOf(held, '2030-01-01T00:00:30.000Z', takeover)).toEqual({
      since: '2030-01-01T00:00:30.000Z',
      takeover_by: '2030-01-01T00:00:45.000Z',
      then: 'resume',
    });
    expect(workerLostOf(held, '2030-01-01T00:01:00.000Z', { everyMs: 1_000, policy: 'fail' })?.then).toBe(
      'fail',
    );
  });

  it('finishes a cancel, and never applies to runs no worker holds', () => {
    const later = '2030-01-01T00:01:00.000Z';
    expect(workerLostOf({ ...held, status: 'cancel_requested' }, later, takeover)?.then).toBe('cancel');
    for (const status of [
      'pending',
      'input_required',
      'completed',
      'failed',
      'cancelled',
      'interrupted',
    ] as const)
      expect(workerLostOf({ ...held, status }, later, takeover)).toBeNull();
    expect(workerLostOf({ ...held, worker_id: null }, later, takeover)).toBeNull();
    expect(workerLostOf({ ...held, lease_expires_at: null }, later, takeover)).toBeNull();
  });
});
