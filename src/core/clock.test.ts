import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoAfter, isoNow, type Clock } from './clock.js';

describe('isoNow', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('formats the current millisecond, a new string once the millisecond changes', () => {
    vi.useFakeTimers({ now: Date.parse('2026-12-04T10:00:00.123Z'), toFake: ['Date'] });
    expect(isoNow()).toBe('2026-12-04T10:00:00.123Z');
    expect(isoNow()).toBe('2026-12-04T10:00:00.123Z');
    vi.setSystemTime(Date.parse('2026-12-04T10:00:00.124Z'));
    expect(isoNow()).toBe('2026-12-04T10:00:00.124Z');
    // Time set back (an NTP step) is followed too, not held at the latest value.
    vi.setSystemTime(Date.parse('2026-12-04T09:59:59.000Z'));
    expect(isoNow()).toBe('2026-12-04T09:59:59.000Z');
  });

  it('asks an injected clock every time', () => {
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    const clock: Clock = { now: () => new Date(now) };
    expect(isoNow(clock)).toBe('2030-01-01T00:00:00.000Z');
    now += 1;
    expect(isoNow(clock)).toBe('2030-01-01T00:00:00.001Z');
    expect(isoAfter(clock, 1_000)).toBe('2030-01-01T00:00:01.001Z');
  });
});
