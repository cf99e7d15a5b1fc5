import type { EventBus } from '../../core/ports/event-bus.js';
import type { Run } from '../../core/records/run.js';
import type { RunEvent } from '../../core/records/run-event.js';

/**
 * The row a run's `end` event committed, held beside the event object itself. A waiter in the process that
 * ended the run receives that very object from an in-process bus and needs no read to learn how the run
 * ended. A weak map, not a field: nothing of it can leak into a payload, an SSE frame or a log.
 */
const endedRuns = new WeakMap<RunEvent, Run>();

/**
 * The rows of the last `end`s a bus published, by run and seq. A bus outside the process (Redis) hands a
 * subscriber a copy of the event, not the object; the copy of an `end` this process published finds its row
 * here. Per bus, i.e. per runtime: an `end` another process published is read. A copy comes back within a
 * round trip of its publish, so a few dozen rows cover every `end` still on its way; an older copy is read.
 */
const publishedEnds = new WeakMap<EventBus, Map<string, Run>>();
const PUBLISHED_ENDS_KEPT = 64;

const endKey = (event: RunEvent): string => `${event.run_id}:${event.seq}`;

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

/**
 * Keeps the rows attached to the `end`s among `events`, which `bus` is about to publish: committed, so their
 * run and seq name that row for good.
 */
export function rememberPublishedEnds(bus: EventBus, events: readonly RunEvent[]): void {
  for (const event of events) {
    const run = event.type === 'end' ? endedRuns.get(event) : undefined;
    if (run === undefined) continue;
    let kept = publishedEnds.get(bus);
    if (kept === undefined) publishedEnds.set(bus, (kept = new Map<string, Run>()));
    kept.set(endKey(event), run);
    if (kept.size > PUBLISHED_ENDS_KEPT) kept.delete(kept.keys().next().value as string);
  }
}

/**
 * The committed row of the run an `end` event ended, when this process wrote both: the event itself, or a
 * copy of it that `bus` delivered after this process published it.
 */
export function endedRunOf(event: RunEvent, bus: EventBus): Run | undefined {
  return endedRuns.get(event) ?? publishedEnds.get(bus)?.get(endKey(event));
}
