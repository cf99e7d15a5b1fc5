import { describe, expect, it } from 'vitest';
import { nextLeaseCheck, settlesModelCall } from './run-figures.ts';
import { looseRunEvent } from './loose-run-event.ts';

describe('settlesModelCall', () => {
  it('is the event that commits with a model turn: a first tool call, or a step', () => {
    expect(
      settlesModelCall(looseRunEvent('tool_call', { model_usage: { input_tokens: 1, output_tokens: 1 } })),
    ).toBe(true);
    expect(settlesModelCall(looseRunEvent('tool_call', {}))).toBe(false);
    expect(settlesModelCall(looseRunEvent('step', { step: 2 }))).toBe(true);
    expect(settlesModelCall(looseRunEvent('step', { step: 2, resumed: true }))).toBe(false);
    expect(settlesModelCall(looseRunEvent('message_delta', { text: 'x' }))).toBe(false);
  });
});

describe('nextLeaseCheck', () => {
  const now = Date.parse('2030-01-01T00:00:00.000Z');
  const run = (lease: string | null, extra: object = {}) => ({
    status: 'running' as const,
    started_at: '2030-01-01T00:00:00.000Z',
    finished_at: null,
    lease_expires_at: lease,
    ...extra,
  });

  it('looks just after the earliest lease of a held run expires, never sooner than 2 s', () => {
    expect(nextLeaseCheck([run('2030-01-01T00:00:30.000Z'), run('2030-01-01T00:00:10.000Z')], now)).toBe(
      now + 10_500,
    );
    expect(nextLeaseCheck([run('2029-12-31T23:59:00.000Z')], now)).toBe(now + 2_000);
    // A lease years away: an hour, not a delay a browser timer overflows on (and then fires at once).
    expect(nextLeaseCheck([run('2999-01-01T00:00:00.000Z')], now)).toBe(now + 3_600_000);
  });

  it('looks again soon while a worker is lost, and never for runs no lease holds', () => {
    const lost = {
      since: '2030-01-01T00:00:00.000Z',
      takeover_by: '2030-01-01T00:00:15.000Z',
      then: 'resume',
    };
    expect(nextLeaseCheck([run('2029-12-31T23:59:00.000Z', { worker_lost: lost })], now)).toBe(now + 3_000);
    expect(nextLeaseCheck([{ ...run(null), status: 'pending' as const }], now)).toBeNull();
    expect(nextLeaseCheck([run(null)], now)).toBeNull();
  });
});
