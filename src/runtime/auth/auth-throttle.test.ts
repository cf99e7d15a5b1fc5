import { describe, expect, it } from 'vitest';
import type { Clock } from '../../core/clock.js';
import { createAuthThrottle } from './auth-throttle.js';

function manualClock(): Clock & { advance(ms: number): void } {
  let now = Date.parse('2026-01-01T00:00:00.000Z');
  return { now: () => new Date(now), advance: (ms) => (now += ms) };
}

describe('createAuthThrottle', () => {
  it('holds a client back after maxFailures in the window, until its oldest failure leaves the window', () => {
    const clock = manualClock();
    const throttle = createAuthThrottle({ maxFailures: 3, windowMs: 60_000, clock });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect(throttle.retryAfter('10.0.0.1')).toBeUndefined();
      throttle.recordFailure('10.0.0.1');
      clock.advance(10_000);
    }
    // Failures at 0 s, 10 s and 20 s; now 30 s: the first leaves the window at 60 s.
    expect(throttle.retryAfter('10.0.0.1')).toBe(30);
    clock.advance(29_500);
    expect(throttle.retryAfter('10.0.0.1')).toBe(1);
    clock.advance(500);
    expect(throttle.retryAfter('10.0.0.1')).toBeUndefined();
  });

  it('never holds back a client for the failures of another', () => {
    const throttle = createAuthThrottle({ maxFailures: 2, windowMs: 60_000, clock: manualClock() });
    throttle.recordFailure('a');
    throttle.recordFailure('a');
    expect(throttle.retryAfter('a')).toBe(60);
    expect(throttle.retryAfter('b')).toBeUndefined();
  });

  it('is off with maxFailures 0', () => {
    const throttle = createAuthThrottle({ maxFailures: 0, windowMs: 60_000 });
    for (let attempt = 0; attempt < 50; attempt += 1) throttle.recordFailure('a');
    expect(throttle.retryAfter('a')).toBeUndefined();
  });

  it('forgets the stalest clients beyond maxClients', () => {
    const clock = manualClock();
    const throttle = createAuthThrottle({ maxFailures: 1, windowMs: 60_000, clock, maxClients: 2 });
    for (const client of ['a', 'b', 'c']) {
      throttle.recordFailure(client);
      clock.advance(1);
    }
    expect(throttle.retryAfter('a')).toBeUndefined();
    expect(throttle.retryAfter('b')).toBeDefined();
    expect(throttle.retryAfter('c')).toBeDefined();
  });
});
