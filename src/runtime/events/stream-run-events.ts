import type { EventBus } from '../../core/ports/event-bus.js';
import type { Storage } from '../../core/ports/storage.js';
import type { RunEvent } from '../../core/records/run-event.js';
import { isTerminalStatus } from '../../core/records/run.js';
import { isTroupeError } from '../../core/errors.js';
import { iterateRunEvents } from './iterate-run-events.js';
import { readWhileBusDown } from './read-while-bus-down.js';
import type { RunEventSink } from './run-event-sink.js';

const PAGE_SIZE = 500;
const SAFETY_RECHECK_MS = 10_000;
/** How soon a stream whose storage read failed for an outage reads again. */
const STORAGE_RETRY_MS = 1_000;

/** The events of a run from a resume point; `ended` says up front that there is nothing to wait for. */
export interface RunEventStream extends AsyncIterable<RunEvent> {
  /**
   * The resume point is at or past the run's `end`: the iterable yields nothing and ends at once (SSE
   * answers 204 so a standard EventSource stops reconnecting).
   */
  readonly ended: boolean;
  /**
   * Push mode: delivers to `sink` until `end` (then resolves), or until the stream's signal aborts (resolves
   * too); rejects when storage fails. A stream is consumed once, either this way or by iteration.
   */
  forEach(sink: RunEventSink): Promise<void>;
}

const ENDED: RunEventStream = {
  ended: true,
  forEach: () => Promise.resolve(),
  [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true, value: undefined }) }),
};

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
 * Subscribes before reading the backlog, then serves live events; any gap between what was delivered and
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
  if (await resumesAtOrPastEnd(storage, runId, afterSeq)) return ENDED;

  let sink: RunEventSink | undefined;
  let cursor = afterSeq;
  // While storage is read (the backlog, a hole), live events wait here in publish order.
  let catchingUp = true;
  const held: RunEvent[] = [];
  let delivered = 0;
  let finished = false;
  let settle: { resolve: () => void; reject: (error: unknown) => void } | undefined;
  let safety: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;

  const subscription = await bus.subscribe(runId, (event) => {
    if (finished) return;
    if (catchingUp) held.push(event);
    else if (accept(event) === 'hole') {
      catchingUp = true;
      held.push(event);
      void catchUp();
    }
  });
  // While the bus is down, events reach this stream from storage; and once more when it is back.
  const stopReading = readWhileBusDown(bus, () => {
    if (finished || catchingUp || !sink) return;
    catchingUp = true;
    void catchUp();
  });
  const onAbort = (): void => end();
  signal.addEventListener('abort', onAbort);
  if (signal.aborted) end();

  function end(error?: unknown): void {
    if (finished) return;
    finished = true;
    held.length = 0;
    clearTimeout(safety);
    clearTimeout(retry);
    stopReading();
    signal.removeEventListener('abort', onAbort);
    const unsubscribed = subscription.unsubscribe();
    void unsubscribed.then(
      () => (error === undefined ? settle?.resolve() : settle?.reject(error)),
      (unsubscribeError: unknown) => settle?.reject(error ?? unsubscribeError),
    );
  }

  function deliver(event: RunEvent): void {
    cursor = event.seq;
    delivered += 1;
    try {
      sink?.event(event);
    } catch (error) {
      end(error);
      return;
    }
    if (event.type === 'end') end();
  }

  /** Takes the next event in order; a hole (the event is ahead of the cursor) is left to the caller. */
  function accept(event: RunEvent): 'taken' | 'hole' {
    if (event.seq > cursor + 1) return 'hole';
    if (event.seq === cursor + 1) deliver(event);
    // At or behind the cursor: already delivered, or the run ended at or before where the reader resumed.
    else if (event.type === 'end') end();
    return 'taken';
  }

  /** Delivers what storage has after the cursor, page by page; how many events it found. */
  async function readStorage(): Promise<number> {
    let found = 0;
    for (;;) {
      const page = await storage.events.list(runId, cursor, PAGE_SIZE);
      for (const event of page) {
        if (finished) return found;
        deliver(event);
      }
      found += page.length;
      if (finished || page.length < PAGE_SIZE) return found;
      await sink?.ready?.();
    }
  }

  async function catchUp(): Promise<void> {
    try {
      // Storage first: it has every event committed before it was published.
      await readStorage();
      while (!finished) {
        const next = held.shift();
        if (!next) break;
        if (accept(next) === 'taken') continue;
        // Nothing to fill means storage cannot explain the hole; serve the event rather than spin.
        if ((await readStorage()) === 0) deliver(next);
        else held.unshift(next);
      }
      catchingUp = false;
    } catch (error) {
      // The database restarting keeps the stream open: it reads again shortly (docs/scale-out.md, "Outages").
      if (isTroupeError(error, 'storage_unavailable'))
        retry = setTimeout(() => void catchUp(), STORAGE_RETRY_MS);
      else end(error);
    }
  }

  /** Safety net only: a publish the bus dropped is found in storage after a quiet while. */
  function armSafety(): void {
    const seen = delivered;
    safety = setTimeout(() => {
      if (finished) return;
      if (catchingUp || delivered !== seen) return armSafety();
      catchingUp = true;
      void catchUp().then(() => finished || armSafety());
    }, SAFETY_RECHECK_MS);
  }

  let iterator: AsyncIterator<RunEvent> | undefined;
  const stream: RunEventStream = {
    ended: false,
    forEach(next) {
      if (sink) return Promise.reject(new Error('A run event stream is consumed once'));
      sink = next;
      const done = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
      if (finished) settle?.resolve();
      else {
        armSafety();
        void catchUp();
      }
      return done;
    },
    [Symbol.asyncIterator]: () => (iterator ??= iterateRunEvents(stream, () => end())),
  };
  return stream;
}
