import { TroupeError } from '../../core/errors.js';
import type { EventBus, Subscription } from '../../core/ports/event-bus.js';
import type { Storage } from '../../core/ports/storage.js';
import { isTerminalStatus, type Run } from '../../core/records/run.js';

function exists(run: Run | undefined, runId: string): Run {
  if (!run) throw new TroupeError('run_not_found', `Run ${runId} not found`);
  return run;
}

export interface AwaitedRuns {
  /** The latest state of every awaited run, in the order of the ids. */
  runs: Run[];
  /** The first run seen terminal, if any (`any` mode reports it). */
  first: Run | undefined;
  /** The wait ended on the timeout, before its condition held. */
  timed_out: boolean;
}

/**
 * Waits until every run (`all`) or one run (`any`) of a batch is terminal, with two reads for the whole
 * batch instead of two per run: one after subscribing (so an end published in between is not missed), one
 * when the wait is over. The caller's signal ends the wait with its reason; the timeout returns the runs as
 * they are.
 */
export async function awaitRunsTerminal(
  storage: Storage,
  bus: EventBus,
  ids: readonly string[],
  options: {
    mode: 'all' | 'any';
    timeoutMs: number;
    signal?: AbortSignal | undefined;
    /** Checks each run of the first read (e.g. the caller may see it); throws to refuse. Default: it exists. */
    check?: (run: Run | undefined, runId: string) => Run;
  },
): Promise<AwaitedRuns> {
  const pending = new Set(ids);
  let firstEnded: string | undefined;
  let settle: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (settle = resolve));
  const ended = (runId: string) => {
    if (!pending.delete(runId)) return;
    firstEnded ??= runId;
    if (options.mode === 'any' || pending.size === 0) settle();
  };
  const subscriptions: Subscription[] = [];
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    for (const runId of pending) {
      subscriptions.push(
        await bus.subscribe(runId, (event) => {
          if (event.type === 'end') ended(runId);
        }),
      );
    }
    const read = async (check: (run: Run | undefined, runId: string) => Run): Promise<Map<string, Run>> => {
      const runs = new Map((await storage.runs.getMany(ids)).map((run) => [run.id, run]));
      for (const runId of ids) check(runs.get(runId), runId);
      return runs;
    };
    const current = await read(options.check ?? exists);
    for (const runId of ids) if (isTerminalStatus(current.get(runId)?.status ?? 'pending')) ended(runId);
    let timedOut = false;
    const waits = pending.size > 0 && !(options.mode === 'any' && firstEnded !== undefined);
    if (waits) {
      const { signal } = options;
      const aborted = new Promise<never>((_resolve, reject) => {
        if (!signal) return;
        if (signal.aborted) reject(signal.reason as Error);
        onAbort = () => reject(signal.reason as Error);
        signal.addEventListener('abort', onAbort, { once: true });
      });
      // A settled race leaves `aborted` pending forever; it must not count as an unhandled rejection later.
      aborted.catch(() => undefined);
      const expired = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), options.timeoutMs);
      });
      timedOut = (await Promise.race([done.then(() => 'done' as const), expired, aborted])) === 'timeout';
    }
    const latest = waits ? await read(exists) : current;
    const runs = ids.map((runId) => latest.get(runId) as Run);
    const first = firstEnded === undefined ? undefined : latest.get(firstEnded);
    const condition =
      options.mode === 'all' ? runs.every((run) => isTerminalStatus(run.status)) : first !== undefined;
    return { runs, first, timed_out: timedOut && !condition };
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    await Promise.all(subscriptions.map((subscription) => subscription.unsubscribe()));
  }
}
