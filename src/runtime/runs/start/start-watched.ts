import { newRunId } from '../../../core/ids.js';
import type { EventBus } from '../../../core/ports/event-bus.js';
import type { Run } from '../../../core/records/run.js';
import { watchRunEnds, type WatchedSince } from '../wait/watch-run-ends.js';

/**
 * Starts a child run (`start` gives the new run the id it is passed) watched from before it exists, then
 * hands the outcome to `use`: a wait given `since` needs no read to know the child has not ended. A replay
 * answers with a run of an earlier start, which the watch did not see from its beginning: `since` is then
 * undefined, and the wait reads it as any other run.
 */
export async function startWatched<T extends { kind: string; run?: Run }, R>(
  bus: EventBus,
  start: (runId: string) => Promise<T>,
  use: (outcome: T, since: WatchedSince | undefined) => Promise<R>,
): Promise<R> {
  const runId = newRunId();
  const watch = await watchRunEnds(bus, [runId]);
  try {
    const outcome = await start(runId);
    const { run } = outcome;
    return await use(outcome, run?.id === runId ? { watch, created: [run] } : undefined);
  } finally {
    await watch.close();
  }
}
