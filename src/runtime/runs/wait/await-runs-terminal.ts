import { TroupeError } from '../../../core/errors.js';
import type { EventBus } from '../../../core/ports/event-bus.js';
import type { Storage } from '../../../core/ports/storage.js';
import { isTerminalStatus, type Run } from '../../../core/records/run.js';
import { readWhileBusDown } from '../../events/read-while-bus-down.js';
import { watchRunEnds, type RunEndWatch, type WatchedSince } from './watch-run-ends.js';

function exists(run: Run | undefined, runId: string): Run {
  if (!run) throw new TroupeError('run_not_found', `Run ${runId} not found`);
  return run;
}

/**
 * How often a wait on a bus outside the process reads its runs while the bus is up: a safety net for an `end`
 * whose publish was lost (as often as an SSE stream re-checks storage when quiet).
 */
const SAFETY_REREAD_MS = 10_000;

/**
 * Every run's ended row, when the first read, an `end` carrying it or a re-read during the wait (`reread`) gave
 * each one; else undefined.
 */
function knownEnded(
  ids: readonly string[],
  current: ReadonlyMap<string, Run>,
  watch: RunEndWatch,
  reread: ReadonlyMap<string, Run>,
): Map<string, Run> | undefined {
  const rows = new Map<string, Run>();
  for (const runId of ids) {
    const first = current.get(runId);
    // An `end` delivered during the wait is newer than the first read.
    const row =
      watch.endedRow(runId) ??
      reread.get(runId) ??
      (first && isTerminalStatus(first.status) ? first : undefined);
    if (!row) return undefined;
    rows.set(runId, row);
  }
  return rows;
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
 * when the wait is over. The first is skipped when the caller watched the runs' ends from before they
 * existed and passes the rows it created (`since`); the second when every run's ended row is known, from the
 * first read or attached to its `end` (`endedRunOf`: delivered in-process, or carried through Redis). The
 * caller's signal ends the wait with its reason; the timeout returns the runs as they are.
 *
 * No wait hears its runs' ends from the bus alone: on a bus outside the process the runs are also read while
 * it is down, once when it is back, and every SAFETY_REREAD_MS, so an `end` published while Redis was away
 * still ends the wait (`readWhileBusDown`). A failed re-read is tried again; it never ends the wait.
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
    /** A watch of these runs' ends the caller opened before it created them, and closes itself. */
    since?: WatchedSince | undefined;
  },
): Promise<AwaitedRuns> {
  const { since } = options;
  const watch = since?.watch ?? (await watchRunEnds(bus, ids));
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  try {
    const read = async (check: (run: Run | undefined, runId: string) => Run): Promise<Map<string, Run>> => {
      const runs = new Map((await storage.runs.getMany(ids)).map((run) => [run.id, run]));
      for (const runId of ids) check(runs.get(runId), runId);
      return runs;
    };
    const current =
      since && ids.every((runId) => since.created.some((run) => run.id === runId))
        ? new Map(since.created.map((run) => [run.id, run]))
        : await read(options.check ?? exists);
    const pending = new Set(ids.filter((runId) => !watch.ended(runId)));
    for (const runId of ids)
      if (isTerminalStatus(current.get(runId)?.status ?? 'pending')) pending.delete(runId);
    let firstEnded = ids.find((runId) => !pending.has(runId));
    let stopListening: (() => void) | undefined;
    let stopReading: (() => void) | undefined;
    const reread = new Map<string, Run>();
    let timedOut = false;
    const waits = pending.size > 0 && !(options.mode === 'any' && firstEnded !== undefined);
    try {
      // One promise for the three ways a wait ends (the condition, the timeout, the caller's signal): cheaper
      // than racing three, and nothing is left pending after it settles.
      if (waits) {
        timedOut = await new Promise<boolean>((resolve, reject) => {
          const { signal } = options;
          if (signal?.aborted) {
            reject(signal.reason as Error);
            return;
          }
          const ended = (runId: string): void => {
            if (!pending.delete(runId)) return;
            firstEnded ??= runId;
            if (options.mode === 'any' || pending.size === 0) resolve(false);
          };
          stopListening = watch.onEnd(ended);
          let reading = false;
          const readPending = async (): Promise<void> => {
            if (reading || pending.size === 0) return;
            reading = true;
            try {
              for (const run of await storage.runs.getMany([...pending])) {
                if (!isTerminalStatus(run.status)) continue;
                reread.set(run.id, run);
                ended(run.id);
              }
            } catch {
              // Storage is away too: the next read tries again.
            } finally {
              reading = false;
            }
          };
          stopReading = readWhileBusDown(bus, () => void readPending(), { safetyMs: SAFETY_REREAD_MS });
          timer = setTimeout(() => resolve(true), options.timeoutMs);
          if (signal) {
            onAbort = () => reject(signal.reason as Error);
            signal.addEventListener('abort', onAbort, { once: true });
          }
        });
      }
    } finally {
      stopListening?.();
      stopReading?.();
    }
    // The first read stands for the answer only when it saw every end the wait counted: an `end` heard while
    // that read was in flight makes its row stale (the run was still running when read).
    const endedAfterRead = ids.some(
      (runId) => watch.ended(runId) && !isTerminalStatus(current.get(runId)?.status ?? 'pending'),
    );
    const latest =
      !waits && !since && !endedAfterRead
        ? current
        : (knownEnded(ids, current, watch, reread) ?? (await read(exists)));
    const runs = ids.map((runId) => latest.get(runId) as Run);
    const first = firstEnded === undefined ? undefined : latest.get(firstEnded);
    const condition =
      options.mode === 'all' ? runs.every((run) => isTerminalStatus(run.status)) : first !== undefined;
    return { runs, first, timed_out: timedOut && !condition };
  } finally {
    if (timer) clearTimeout(timer);
    if (onAbort) options.signal?.removeEventListener('abort', onAbort);
    if (!since) await watch.close();
  }
}
