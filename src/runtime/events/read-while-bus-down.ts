import type { EventBus } from '../../core/ports/event-bus.js';

/** How often a reader reads storage while the bus is down: events and ends still reach it within this. */
export const BUS_DOWN_READ_MS = 1_000;

/**
 * The storage side of a reader that waits on the bus (an SSE stream, a wait for runs' ends): `read` runs every
 * `intervalMs` while the bus is down, and once more when it is back, since what was published in between never
 * reaches the bus's subscribers (docs/scale-out.md, "Outages"). With `safetyMs` it also runs that often while
 * the bus is up, for a publish lost without an outage this process saw (the publisher's own connection failed).
 * Nothing runs on a bus that never goes down. Returns the function that stops it. `read` handles its own failures.
 */
export function readWhileBusDown(
  bus: EventBus,
  read: () => void,
  options: { intervalMs?: number; safetyMs?: number } = {},
): () => void {
  const { health } = bus;
  if (!health) return () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const every = (ms: number | undefined): void => {
    clearInterval(timer);
    timer = ms === undefined ? undefined : setInterval(read, ms);
  };
  every(health.connected ? options.safetyMs : (options.intervalMs ?? BUS_DOWN_READ_MS));
  const stopListening = health.onChange((connected) => {
    every(connected ? options.safetyMs : (options.intervalMs ?? BUS_DOWN_READ_MS));
    if (connected) read();
  });
  return () => {
    stopListening();
    every(undefined);
  };
}
