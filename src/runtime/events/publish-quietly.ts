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
