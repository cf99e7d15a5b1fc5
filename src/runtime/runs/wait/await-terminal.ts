import type { EventBus } from '../../../core/ports/event-bus.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Run } from '../../../core/records/run.js';
import type { AwaitedRunRecord } from '../run-service-api.js';
import { awaitRunsTerminal } from './await-runs-terminal.js';
import type { WatchedSince } from './watch-run-ends.js';

/**
 * Resolves when the run is terminal, from the bus: subscribe first, then read the row, so an `end`
 * published in between is not missed. No polling; a timeout answers with the current snapshot.
 */
export async function awaitTerminal(
  storage: Storage,
  bus: EventBus,
  runId: string,
  timeoutMs: number,
  signal?: AbortSignal,
  options: {
    /** Checks the first read (e.g. the caller may see the run); throws to refuse. Default: it exists. */
    check?: (run: Run | undefined) => Run;
    /** The run as its creator made it, watched since before (see awaitRunsTerminal): no first read. */
    since?: WatchedSince | undefined;
  } = {},
): Promise<AwaitedRunRecord> {
  const { check, since } = options;
  const { runs, timed_out } = await awaitRunsTerminal(storage, bus, [runId], {
    mode: 'all',
    timeoutMs,
    signal,
    ...(check === undefined ? {} : { check }),
    since,
  });
  return { run: runs[0] as Run, wait_timed_out: timed_out };
}
