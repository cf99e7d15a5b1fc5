import type { Run } from '../../../core/records/run.js';
import type { RunEvent } from '../../../core/records/run-event.js';

/**
 * The row a run's `end` event committed, held beside the event object itself. A waiter in the process that
 * ended the run receives that very object from an in-process bus and needs no read to learn how the run
 * ended; the Redis bus carries the row on the run's end stream and attaches it to the copy it delivers, in
 * any process (`endedRuns` of create-redis-event-bus.ts). An event read from storage is a new object without
 * one, and its waiter reads the row.
 * A weak map, not a field: nothing of it can leak into a payload, an SSE frame or a log.
 */
const endedRuns = new WeakMap<RunEvent, Run>();

/**
 * Attaches `run` to its `end` among `events`, once `run` is the row the same transaction wrote. The
 * transaction may still roll back: an event is published only after its commit, so a rolled-back row is
 * never seen.
 */
export function attachEndedRun(events: readonly RunEvent[], run: Run): void {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (event?.type === 'end' && event.run_id === run.id) {
      endedRuns.set(event, run);
      return;
    }
  }
}

/** The committed row of the run an `end` event ended, when this process wrote both. */
export function endedRunOf(event: RunEvent): Run | undefined {
  return endedRuns.get(event);
}
