import type { EventBus } from '../core/ports/event-bus.js';
import type { Storage } from '../core/ports/storage.js';
import type { RunEvent } from '../core/records/run-event.js';
import { isTerminalStatus } from '../core/records/run.js';

const PAGE_SIZE = 500;
const SAFETY_RECHECK_MS = 10_000;

/** The events of a run from a resume point; `ended` says up front that there is nothing to wait for. */
export interface RunEventStream extends AsyncIterable<RunEvent> {
  /**
   * The resume point is at or past the run's `end`: the iterable yields nothing and ends at once (SSE
   * answers 204 so a standard EventSource stops reconnecting).
   */
  readonly ended: boolean;
}

/**
 * Whether a reader resuming after `afterSeq` has already seen the run's `end`. A terminal run always has
 * its `end` (it is written with the status), so no `end` after the cursor means it is at or before it.
 */
async function resumesAtOrPastEnd(storage: Storage, runId: string, afterSeq: number): Promise<boolean> {
  const run = await storage.runs.get(runId);
  if (!run || !isTerminalStatus(run.status)) return false;
  const after = await storage.events.list(runId, afterSeq, PAGE_SIZE);
  if (after.some((event) => event.type === 'end')) return false;
  // A full page without `end`: it comes later, and the stream will serve it.
  return after.length < PAGE_SIZE;
}

/**
 * Every event of a run after `afterSeq`, in seq order, each exactly once, ending after `end`.
 * Subscribes before reading the backlog, then serves live events; any gap between what was yielded and
 * what the bus delivers (a lost or reordered publish) is filled from storage, so the stream is gapless
 * without polling.
 */
export async function streamRunEvents(
  storage: Storage,
  bus: EventBus,
  runId: string,
  afterSeq: number,
  signal: AbortSignal,
): Promise<RunEventStream> {
  if (await resumesAtOrPastEnd(storage, runId, afterSeq)) {
    return {
      ended: true,
      [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true, value: undefined }) }),
    };
  }
  const live: RunEvent[] = [];
  let wake: (() => void) | undefined;
  const subscription = await bus.subscribe(runId, (event) => {
    live.push(event);
    wake?.();
  });
  const onAbort = (): void => wake?.();
  signal.addEventListener('abort', onAbort);

  async function* iterate(): AsyncGenerator<RunEvent> {
    let cursor = afterSeq;
    try {
      // Backlog first, page by page; then whatever arrives live.
      for (;;) {
        const page = await storage.events.list(runId, cursor, PAGE_SIZE);
        for (const event of page) {
          cursor = event.seq;
          yield event;
          if (event.type === 'end') return;
        }
        if (page.length < PAGE_SIZE) break;
      }
      while (!signal.aborted) {
        const next = live.shift();
        if (!next) {
          const woken = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(false), SAFETY_RECHECK_MS);
            wake = () => {
              clearTimeout(timer);
              resolve(true);
            };
          });
          wake = undefined;
          // Safety net only: a publish the bus dropped is found in storage after a quiet while.
          if (!woken && !signal.aborted) live.push(...(await storage.events.list(runId, cursor, PAGE_SIZE)));
          continue;
        }
        if (next.seq <= cursor) {
          // The run ended at or before where the reader resumed: nothing more will come.
          if (next.type === 'end') return;
          continue;
        }
        if (next.seq > cursor + 1) {
          // A hole: storage has every event before it (events are committed before they are published).
          const missing = await storage.events.list(runId, cursor, PAGE_SIZE);
          // Nothing to fill means storage cannot explain the hole; serve the event rather than spin.
          if (missing.length > 0) live.unshift(next);
          else missing.push(next);
          for (const event of missing) {
            cursor = event.seq;
            yield event;
            if (event.type === 'end') return;
          }
          continue;
        }
        cursor = next.seq;
        yield next;
        if (next.type === 'end') return;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      await subscription.unsubscribe();
    }
  }

  const iterator = iterate();
  return { ended: false, [Symbol.asyncIterator]: () => iterator };
}
