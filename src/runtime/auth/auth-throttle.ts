import { systemClock, type Clock } from '../../core/clock.js';

export interface AuthThrottleOptions {
  /** Failed attempts a client may make per window; at that count it is refused until the oldest expires. */
  maxFailures: number;
  windowMs: number;
  clock?: Clock;
  /** Clients remembered at once; the least recently failing are forgotten first. Default 10 000. */
  maxClients?: number;
}

/**
 * Failed-authentication throttle per client (docs/egress-and-secrets.md), in memory: a sliding window of failure times per
 * client key. Only failures count and only the failing client is held back, so nobody's failures block
 * anybody else. Per process: with several API processes each keeps its own count, which still bounds
 * guessing to `maxFailures` per window per process.
 */
export interface AuthThrottle {
  /** Whole seconds until `client` may try again, or undefined when it may try now. */
  retryAfter(client: string): number | undefined;
  recordFailure(client: string): void;
}

export function createAuthThrottle(options: AuthThrottleOptions): AuthThrottle {
  const clock = options.clock ?? systemClock;
  const maxClients = options.maxClients ?? 10_000;
  const failures = new Map<string, number[]>();
  // 0 (or a config without the setting) turns the throttle off rather than refusing everyone.
  const enabled = Number.isInteger(options.maxFailures) && options.maxFailures > 0;

  function recent(client: string, now: number): number[] {
    const times = (failures.get(client) ?? []).filter((time) => now - time < options.windowMs);
    if (times.length === 0) failures.delete(client);
    return times;
  }

  function forgetStalest(): void {
    // Map order is insertion order, and a failure re-inserts its client: the first is the stalest.
    for (const client of failures.keys()) {
      if (failures.size <= maxClients) return;
      failures.delete(client);
    }
  }

  return {
    retryAfter(client) {
      if (!enabled) return undefined;
      const now = clock.now().getTime();
      const times = recent(client, now);
      if (times.length < options.maxFailures) return undefined;
      const oldest = times[times.length - options.maxFailures] ?? now;
      return Math.max(1, Math.ceil((oldest + options.windowMs - now) / 1000));
    },

    recordFailure(client) {
      if (!enabled) return;
      const now = clock.now().getTime();
      const times = [...recent(client, now), now].slice(-options.maxFailures);
      failures.delete(client);
      failures.set(client, times);
      forgetStalest();
    },
  };
}
