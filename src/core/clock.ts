/** Time is a port so leases and timestamps can be tested without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

let lastMs = Number.NaN;
let lastIso = '';

/** ISO-8601 UTC with milliseconds: fixed width, so string order equals time order in every store. */
export function isoNow(clock: Clock = systemClock): string {
  if (clock !== systemClock) return clock.now().toISOString();
  // A run's step stamps a dozen rows within the same millisecond: format each millisecond once.
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

export function isoAfter(clock: Clock, milliseconds: number): string {
  return new Date(clock.now().getTime() + milliseconds).toISOString();
}
