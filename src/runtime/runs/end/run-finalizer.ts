import { isoNow, type Clock } from '../../../core/clock.js';
import type { EventBus } from '../../../core/ports/event-bus.js';
import type { RunExpectation, RunPatch, Storage } from '../../../core/ports/storage.js';
import { RunExpectationMissed } from '../../../core/runs/run-expectation-missed.js';
import type { Run, RunError, TerminalRunStatus, TokenUsage } from '../../../core/records/run.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import { unusedReserve } from '../../../core/budgets/carve-child-budget.js';
import { closeOpenToolCalls } from './close-open-tool-calls.js';
import { attachEndedRun } from './ended-run-of.js';
import { attachEndedEvidence } from './ended-evidence.js';
import { EVIDENCE_EVENT_TYPES } from '../../../core/verification/evidence.js';
import { keepPartialAnswer } from './keep-partial-answer.js';
import { lineageOf } from '../../events/lineage-of.js';
import { publishAllQuietly } from '../../events/publish-quietly.js';
import { SHARED_COMMIT } from '../../events/shared-commit.js';
import type { AppendBatch, PendingEvent } from '../../events/run-emitter.js';
import { subagentUpdateBatch } from '../children/publish-subagent-update.js';
import { settleInOrder } from '../../../core/settle-in-order.js';
import { EndingRaced } from '../../events/ending-raced.js';

export interface TerminalWrite {
  status: TerminalRunStatus;
  output?: string | null;
  error?: RunError | null;
  usage?: TokenUsage | null;
}

/** What ending a run writes to and announces on: the runtime's, bound once in `RunEndings`. */
export interface RunEndingPorts {
  storage: Storage;
  bus: EventBus;
  clock: Clock;
}

/** One run's ending: which run, from which statuses, what it writes. */
export interface RunEnding {
  runId: string;
  /** The compare-and-set: the statuses (and worker) the run must still be in. */
  expect: RunExpectation;
  write: TerminalWrite;
  /**
   * Whether the run has a budget ledger, when the caller knows: a ledger is created with its run and never
   * removed, so an attempt that loaded none saves the read here.
   */
  hasLedger?: boolean;
  /**
   * How the ending's events join the run's own stream. A caller with a batch of its own (a final checkpoint)
   * passes it, so the step's events and the `end` are one insert; it publishes what that appended itself.
   * The status moves first: appended after it, nothing the batch holds can follow the `end`.
   */
  append?: AppendBatch;
  /**
   * The run's row as the ending's caller holds it (a worker, its claimed attempt). A completed ending with a
   * batch (`append`) and no ledger then sends its events right behind its compare-and-set instead of waiting
   * for its answer; should the compare-and-set miss, it throws `EndingRaced` and its caller's commit runs
   * again without `held` (docs/scale-out.md, "What scales how").
   */
  held?: Run;
}

/** The `end` event of a run as its ending left it. */
function endEvent(run: Run): PendingEvent {
  return {
    type: 'end',
    // Not a spread of the lineage: see the emitter's `ownBatch`.
    payload: Object.assign(lineageOf(run), {
      status: run.status,
      output: run.output,
      error: run.error,
      usage: run.usage,
    }),
  };
}

/** A run that ended, with the events its ending appended that its caller still has to publish once committed. */
export interface EndedRun {
  run: Run;
  events: RunEvent[];
}

/**
 * Moves a run to a terminal status, closes the tool calls it left without a result (docs/runs.md), keeps the
 * text of a model call it left unfinished (`keepPartialAnswer`), appends its `end` event and its parent's
 * `subagent_update`, all inside the caller's transaction `tx`, so no reader can see a finished run without
 * its `end` (SSE and await rely on it) or a thread its conversation's next run could not send to a model.
 * Returns undefined when the guard failed.
 */
export async function endRunIn(tx: Storage, clock: Clock, ending: RunEnding): Promise<EndedRun | undefined> {
  const { runId, expect, write, hasLedger, append, held } = ending;
  const patch = {
    status: write.status,
    ...(write.output !== undefined ? { output: write.output } : {}),
    ...(write.error !== undefined ? { error: write.error } : {}),
    ...(write.usage !== undefined ? { usage: write.usage } : {}),
    worker_id: null,
    lease_expires_at: null,
    finished_at: isoNow(clock),
  };
  if (held && append && write.status === 'completed' && hasLedger === false) {
    return endSpeculatively(tx, { runId, expect, patch, expected: { ...held, ...patch } }, append);
  }
  const run = await tx.runs.update(runId, expect, patch);
  if (!run) return undefined;
  // What a budgeted child did not use goes back to its parent with the same commit that ends it.
  const ledger = hasLedger === false ? undefined : await tx.budgets.get(run.id);
  if (ledger?.parent_run_id) await tx.budgets.release(ledger.parent_run_id, unusedReserve(ledger));
  const closed = await closeOpenToolCalls(tx, { ...run, status: write.status });
  // A closing `tool_result` ends any model call in the stream, so no text can be unfinished after one.
  if (closed.length === 0) await keepPartialAnswer(tx, { ...run, status: write.status });
  const end = endEvent(run);
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

/**
 * A completed run's ending with its `end` (and its parent's `subagent_update`) sent right behind its
 * compare-and-set, built from the row its worker holds: what the `end` says comes from what the ending writes,
 * and a completed run has no open tool call and no unfinished text to close. They are the transaction's last
 * statements, its COMMIT written behind them (`commitBehind`), so the compare-and-set fails its statement when
 * it misses: the database then commits nothing of the transaction, and the commit runs again careful
 * (docs/scale-out.md, "What scales how").
 */
async function endSpeculatively(
  tx: Storage,
  ending: { runId: string; expect: RunExpectation; patch: RunPatch; expected: Run },
  append: AppendBatch,
): Promise<EndedRun> {
  const { expected } = ending;
  // Before the writes: a parent it has to read (a grandchild's) is read before anything is sent behind them.
  const update = await subagentUpdateBatch(tx, expected);
  const moved = tx.runs.update(ending.runId, ending.expect, ending.patch, { orFail: true });
  const appending = append([endEvent(expected)], update ? [update] : []);
  // A subagent's parent reads its evidence next: read back here, behind the events this batch appends, it
  // costs no round trip of its own (ended-evidence.ts).
  const evidence =
    expected.run_type === 'subagent' ? tx.events.listOfTypes(ending.runId, EVIDENCE_EVENT_TYPES) : undefined;
  tx.commitBehind(evidence ? [moved, appending, evidence] : [moved, appending]);
  try {
    const [run, appended, evidenceEvents] = await settleInOrder([moved, appending, evidence]);
    if (!run) throw new EndingRaced(expected.id);
    attachEndedRun(appended, run);
    if (evidenceEvents) attachEndedEvidence(run, evidenceEvents);
    return { run, events: [] };
  } catch (error) {
    if (error instanceof RunExpectationMissed) throw new EndingRaced(expected.id);
    throw error;
  }
}

/** endRunIn in a transaction of its own, then its events published. */
export async function finishRun(ports: RunEndingPorts, ending: RunEnding): Promise<Run | undefined> {
  const finished = await ports.storage.sharedCommitTransaction(
    (tx) => endRunIn(tx, ports.clock, ending),
    SHARED_COMMIT,
  );
  if (!finished) return undefined;
  await publishAllQuietly(ports.bus, finished.events);
  return finished.run;
}
