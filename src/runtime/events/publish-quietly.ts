import type { EventBus } from '../../core/ports/event-bus.js';
import type { Storage } from '../../core/ports/storage.js';
import type { RunEvent, RunEventBody, RunEventType } from '../../core/records/run-event.js';

/** Persists first (the database is the source of truth), then publishes for live subscribers. */
export async function appendAndPublish<K extends RunEventType>(
  storage: Storage,
  bus: EventBus,
  runId: string,
  type: K,
  payload: RunEventBody<K>,
): Promise<RunEvent> {
  const event = await storage.events.append({ run_id: runId, type, payload });
  await publishQuietly(bus, event);
  return event;
}

/** Publishing is best effort: a subscriber that misses an event catches up from storage. */
export async function publishQuietly(bus: EventBus, event: RunEvent): Promise<void> {
  try {
    await bus.publish(event);
  } catch {
    // Readers recover from storage; a bus hiccup must not fail the run.
  }
}
