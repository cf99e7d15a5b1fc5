import type { EventBus, Subscription } from '../../../core/ports/event-bus.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import type { Run } from '../../../core/records/run.js';
import { endedRunOf } from '../end/ended-run-of.js';

/** The `end` events of some runs, heard from the moment the watch opened (the bus is gapless from there). */
export interface RunEndWatch {
  /** Whether an `end` of the run arrived since the watch opened. */
  ended(runId: string): boolean;
  /** The row that `end` committed, when its event carries it (`endedRunOf`): in-process, or from Redis. */
  endedRow(runId: string): Run | undefined;
  /** Calls `listener` for every `end` from now on; returns the function that stops it. */
  onEnd(listener: (runId: string) => void): () => void;
  close(): Promise<void>;
}

/** Runs their creator watched since before it made them, as a wait takes them (awaitRunsTerminal's `since`). */
export interface WatchedSince {
  watch: RunEndWatch;
  /** The rows the creator made: they stand for the wait's first read. */
  created: readonly Run[];
}

/**
 * Opens a watch of the runs' ends. A run may not exist yet: a caller that watches the id it is about to
 * create, then creates the run, knows every end of it without reading it back.
 */
export async function watchRunEnds(bus: EventBus, ids: readonly string[]): Promise<RunEndWatch> {
  const ended = new Map<string, Run | undefined>();
  const listeners = new Set<(runId: string) => void>();
  const subscriptions: Subscription[] = [];
  const close = () =>
    Promise.all(subscriptions.map((subscription) => subscription.unsubscribe())).then(() => undefined);
  const subscribe = (runId: string, listener: (event: RunEvent) => void) =>
    bus.subscribeEnds ? bus.subscribeEnds(runId, listener) : bus.subscribe(runId, listener);
  try {
    for (const runId of new Set(ids)) {
      subscriptions.push(
        await subscribe(runId, (event) => {
          if (event.type !== 'end') return;
          // A copy without a row (one from another storage read, or a bare end from Redis) has the run read,
          // whatever an earlier end carried.
          ended.set(runId, endedRunOf(event));
          for (const listener of listeners) listener(runId);
        }),
      );
    }
  } catch (error) {
    await close();
    throw error;
  }
  return {
    ended: (runId) => ended.has(runId),
    endedRow: (runId) => ended.get(runId),
    onEnd(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close,
  };
}
