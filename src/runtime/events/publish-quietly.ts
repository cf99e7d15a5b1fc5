import type { EventBus } from '../../core/ports/event-bus.js';
import type { RunEvent } from '../../core/records/run-event.js';

/** Publishing is best effort: a subscriber that misses an event catches up from storage. */
export async function publishQuietly(bus: EventBus, event: RunEvent): Promise<void> {
  try {
    await bus.publish(event);
  } catch {
    // Readers recover from storage; a bus hiccup must not fail the run.
  }
}

/** The events of one write, in order: in one call where the bus takes several (one Redis round trip). */
export async function publishAllQuietly(bus: EventBus, events: readonly RunEvent[]): Promise<void> {
  if (events.length === 0) return;
  if (!bus.publishMany || events.length === 1) {
    for (const event of events) await publishQuietly(bus, event);
    return;
  }
  try {
    await bus.publishMany(events);
  } catch {
    // As publishQuietly: readers recover from storage.
  }
}
