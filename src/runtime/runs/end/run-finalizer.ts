import { isoNow, type Clock } from '../../../core/clock.js';
import type { EventBus } from '../../../core/ports/event-bus.js';
import type { RunExpectation, Storage } from '../../../core/ports/storage.js';
import type { Run, RunError, TerminalRunStatus, TokenUsage } from '../../../core/records/run.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import { unusedReserve } from '../../../core/budgets/carve-child-budget.js';
import { closeOpenToolCalls } from './close-open-tool-calls.js';
import { attachEndedRun } from './ended-run-of.js';
import { keepPartialAnswer } from './keep-partial-answer.js';
import {
  lineageOf,
  publishQuietly,
  SHARED_COMMIT,
  type AppendBatch,
  type PendingEvent,
} from '../../events/run-emitter.js';
import { publishSubagentUpdate, subagentUpdateBatch } from '../children/publish-subagent-update.js';

export interface TerminalWrite {
  status: TerminalRunStatus;
  output?: string | null;
  error?: RunError | null;
  usage?: TokenUsage | null;
}

/** A run that ended, with the events its ending appended that its caller still has to publish once committed. */
export interface EndedRun {
  run: Run;
  events: RunEvent[];
}

/**
 * Moves a run to a terminal status, closes the tool calls it left without a result (SPEC §2), keeps the
 * text of a model call it left unfinished (`keepPartialAnswer`), appends its `end` event and its parent's
 * `subagent_update`, all inside the caller's transaction `tx`, so no reader can see a finished run without
 * its `end` (SSE and await rely on it) or a thread its conversation's next run could not send to a model.
 * Returns undefined when the guard failed.
 */
export async function endRunIn(
  tx: Storage,
  clock: Clock,
  runId: string,
  expect: RunExpectation,
  write: TerminalWrite,
  /**
   * Whether the run has a budget ledger, when the caller knows: a ledger is created with its run and never
   * removed, so an attempt that loaded none saves the read here.
   */
  known: { hasLedger?: boolean } = {},
  /**
   * How the ending's events join the run's own stream. A caller with a batch of its own (a final checkpoint)
   * passes it, so the step's events and the `end` are one insert; it publishes what that appended itself.
   * The status moves first: appended after it, nothing the batch holds can follow the `end`.
   */
  append?: AppendBatch,
): Promise<EndedRun | undefined> {
  const run = await tx.runs.update(runId, expect, {
    status: write.status,
    ...(write.output !== undefined ? { output: write.output } : {}),
    ...(write.error !== undefined ? { error: write.error } : {}),
    ...(write.usage !== undefined ? { usage: write.usage } : {}),
    worker_id: null,
    lease_expires_at: null,
    finished_at: isoNow(clock),
  });
  if (!run) return undefined;
  // What a budgeted child did not use goes back to its parent with the same commit that ends it.
  const ledger = known.hasLedger === false ? undefined : await tx.budgets.get(run.id);
  if (ledger?.parent_run_id) await tx.budgets.release(ledger.parent_run_id, unusedReserve(ledger));
  const closed = await closeOpenToolCalls(tx, { ...run, status: write.status });
  // A closing `tool_result` ends any model call in the stream, so no text can be unfinished after one.
  if (closed.length === 0) await keepPartialAnswer(tx, { ...run, status: write.status });
  const end: PendingEvent = {
    type: 'end',
    // Not a spread of the lineage: see the emitter's `ownBatch`.
    payload: Object.assign(lineageOf(run), {
      status: run.status,
      output: run.output,
      error: run.error,
      usage: run.usage,
    }),
  };
  // The parent hears of the ending in the same insert, so its stream never misses a child's end.
  const update = await subagentUpdateBatch(tx, run);
  const besides = update ? [update] : [];
  // With the caller's batch, the caller publishes what it appended, the parent's update included.
  if (append) {
    attachEndedRun(await append([...closed, end], besides), run);
    return { run, events: [] };
  }
  const appended = await tx.events.appendBatches([{ run_id: run.id, events: [...closed, end] }, ...besides]);
  attachEndedRun(appended[0] ?? [], run);
  return { run, events: appended.flat() };
}

/** endRunIn in a transaction of its own, then its events published. */
export async function finishRun(
  storage: Storage,
  bus: EventBus,
  clock: Clock,
  runId: string,
  expect: RunExpectation,
  write: TerminalWrite,
  known: { hasLedger?: boolean } = {},
): Promise<Run | undefined> {
  const finished = await storage.sharedCommitTransaction(
    (tx) => endRunIn(tx, clock, runId, expect, write, known),
    SHARED_COMMIT,
  );
  if (!finished) return undefined;
  for (const event of finished.events) await publishQuietly(bus, event);
  return finished.run;
}

export const CANCELLED_BEFORE_START: RunError = {
  type: 'cancelled',
  message: 'The run was cancelled before it started',
};
export const CANCELLED: RunError = { type: 'cancelled', message: 'The run was cancelled' };
export const TREE_CLOSED: RunError = {
  type: 'execution_tree_closed',
  message: 'The parent run ended, so its execution tree was closed',
};

/**
 * Requests cancellation of one run: a run no worker holds (pending, parked for input) is cancelled at once;
 * a running one becomes `cancel_requested` and its worker is signalled. Returns the run as it now is.
 * Races with a worker claiming the run are settled by retrying the compare-and-set on the fresh row.
 */
export async function requestCancel(
  storage: Storage,
  bus: EventBus,
  clock: Clock,
  runId: string,
  error: RunError,
): Promise<Run | undefined> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const run = await storage.runs.get(runId);
    if (!run) return undefined;
    switch (run.status) {
      case 'completed':
      case 'failed':
      case 'cancelled':
      case 'interrupted':
      case 'cancel_requested':
        return run;
      case 'pending':
      case 'input_required': {
        const cancelled = await finishRun(
          storage,
          bus,
          clock,
          run.id,
          { status: [run.status] },
          {
            status: 'cancelled',
            error: error === CANCELLED && run.started_at === null ? CANCELLED_BEFORE_START : error,
          },
        );
        if (cancelled) return cancelled;
        break;
      }
      case 'running': {
        const requested = await storage.runs.update(
          run.id,
          { status: ['running'] },
          { status: 'cancel_requested', error },
        );
        if (requested) {
          await publishSubagentUpdate(storage, bus, requested);
          try {
            await bus.signal({ type: 'cancel', run_id: run.id });
          } catch {
            // The worker also sees cancel_requested in the database at its next step or lease renewal.
          }
          return requested;
        }
        break;
      }
    }
  }
  return storage.runs.get(runId);
}

/**
 * Closes every active descendant of `root`, parents before their children, as Yuxi §2.4 does when a run
 * ends. One read finds them all, however wide the tree (a parent of 100 children read 101 times before).
 */
export async function closeSubtree(storage: Storage, bus: EventBus, clock: Clock, root: Run): Promise<Run[]> {
  return closeRuns(storage, bus, clock, await storage.runs.listActiveDescendants(root.id));
}

/** Closes runs of an execution tree read parents first (closeSubtree), each as the tree's end closes it. */
export async function closeRuns(
  storage: Storage,
  bus: EventBus,
  clock: Clock,
  runs: readonly Run[],
): Promise<Run[]> {
  const closed: Run[] = [];
  for (const run of runs) {
    const after = await requestCancel(storage, bus, clock, run.id, TREE_CLOSED);
    if (after) closed.push(after);
  }
  return closed;
}
