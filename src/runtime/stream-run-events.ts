import type { EventBus } from '../core/ports/event-bus.js';
import type { Storage } from '../core/ports/storage.js';
import type { RunEvent } from '../core/records/run-event.js';

const PAGE_SIZE = 500;
const SAFETY_RECHECK_MS = 10_000;

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
): Promise<AsyncIterable<RunEvent>> {
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
        if (next.seq <= cursor) continue;
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

  return iterate();
}
