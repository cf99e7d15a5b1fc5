import type { RunEvent } from '../../core/records/run-event.js';
import type { RunEventSink } from './run-event-sink.js';

/**
 * Pull mode over a stream's push mode: events wait in a queue until the consumer asks, the backlog is read
 * a page at a time as the consumer drains it, and leaving the loop early (`return`) stops the stream.
 */
export function iterateRunEvents(
  stream: { forEach(sink: RunEventSink): Promise<void> },
  stop: () => void,
): AsyncIterator<RunEvent> {
  const queue: RunEvent[] = [];
  let wake: (() => void) | undefined;
  let drained: (() => void) | undefined;
  let settled = false;
  let failure: { error: unknown } | undefined;

  const done = stream.forEach({
    event(event) {
      queue.push(event);
      wake?.();
    },
    ready: () => (queue.length === 0 ? Promise.resolve() : new Promise((resolve) => (drained = resolve))),
  });
  void done.then(
    () => {
      settled = true;
      wake?.();
    },
    (error: unknown) => {
      settled = true;
      failure = { error };
      wake?.();
    },
  );

  return {
    async next(): Promise<IteratorResult<RunEvent>> {
      for (;;) {
        const event = queue.shift();
        if (event) {
          if (queue.length === 0) {
            drained?.();
            drained = undefined;
          }
          return { done: false, value: event };
        }
        if (failure) throw failure.error;
        if (settled) return { done: true, value: undefined };
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    },
    async return(): Promise<IteratorResult<RunEvent>> {
      stop();
      queue.length = 0;
      drained?.();
      // Resolves once the bus subscription is gone, as leaving a generator's `finally` did.
      await done.catch(() => undefined);
      return { done: true, value: undefined };
    },
  };
}
