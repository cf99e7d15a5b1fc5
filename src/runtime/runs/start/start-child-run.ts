import { isTroupeError } from '../../../core/errors.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Run } from '../../../core/records/run.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import { isOwnedChild } from '../../../core/runs/lineage.js';
import type { AdoptedCommit } from '../../../core/tools/adopt-checkpoint.js';
import { traceCarrier } from '../../../core/trace/trace-carrier.js';
import { publishAllQuietly } from '../../events/publish-quietly.js';
import { SHARED_COMMIT } from '../../events/shared-commit.js';
import { checkChildStart, identifyChildStart, type IdentifiedChildStart } from './check-child-start.js';
import { isRefused, refused, REQUEST_ID_CONFLICT } from './child-run-refusal.js';
import type { ChildRunDeps, ChildRunSpec, ChildRunStart } from './child-run-spec.js';
import type { RunReservation } from './local-run-starts.js';
import { startRaceWinner } from './start-race-winner.js';
import { writeChildRun, type WrittenChildRun } from './write-child-run.js';

/**
 * Starts a child run (subagent, delegation) in ONE transaction: parent (and the stop guarantee above it),
 * replay, agent, depth, chain rule, quotas, then the child's conversation (and subagent thread relation), its
 * run row and its first message exist together or not at all, with the creator's held step checkpoint when
 * it hands one over (`adoptCheckpoint`). Each row is read once. After the commit the run is started or
 * enqueued and the parent's stream hears of it. A refusal is a result; two identical starts racing end with
 * one run, which both return.
 */
export async function startChildRun(deps: ChildRunDeps, spec: ChildRunSpec): Promise<ChildRunStart> {
  const { storage } = deps;
  // Read outside the transaction: its callback may run in another async context.
  const trace = traceCarrier();
  // Taken before the transaction begins: a second start of the same step waits for this one's commit
  // without holding a transaction of its own.
  const adopted = await spec.adoptCheckpoint?.();
  // What a start that rolled back still needs: the child's names (to answer `busy` or a replay) and the slot
  // it took, to give back.
  const progress: { named?: IdentifiedChildStart; reservation?: RunReservation | undefined } = {};
  try {
    const { outcome, written, checkpointed } = await storage.sharedCommitTransaction(async (tx) => {
      const started = await startIn(tx);
      // A start that creates nothing still commits the checkpoint it took.
      const alone = adopted && !started.written ? await commitAdoptedAlone(tx, adopted) : undefined;
      return { ...started, checkpointed: started.written?.checkpointed ?? alone };
    }, SHARED_COMMIT);
    await adopted?.settle(checkpointed ?? []);
    const requestId = progress.named?.requestId;
    // A replay is answered as such whatever refused it after the parent's checks (a quota its own run fills).
    if (outcome.kind === 'refused' && requestId !== undefined) {
      const replay = await storage.runs.getByRequestId(spec.userId, requestId);
      if (replay) return await replayed(storage, spec, replay);
    }
    if (written) await announceStarted(deps, written, progress.reservation);
    return outcome;
  } catch (error) {
    // Rolled back with the start: the checkpoint is the creating run's to write again.
    await adopted?.settle(undefined);
    const threadId = progress.named?.threadId;
    // A continued thread that already has an active run: the caller says `busy`, nothing is queued behind it.
    if (isTroupeError(error, 'run_busy') && threadId !== undefined) {
      return { kind: 'busy', threadId, activeRun: await storage.runs.getActiveForThread(threadId) };
    }
    const winner = await startRaceWinner(storage, error, spec.userId, progress.named?.requestId);
    if (!winner) throw error;
    return replayed(storage, spec, winner);
  } finally {
    // A start that created no run (refused, replayed, failed) gives the slot back; a started one kept it.
    progress.reservation?.release();
  }

  /** The transaction's steps: name the child, check the rules, write the child's rows. */
  async function startIn(tx: Storage): Promise<{ outcome: ChildRunStart; written?: WrittenChildRun }> {
    const named = await identifyChildStart(tx, spec);
    if (isRefused(named)) return { outcome: named };
    progress.named = named;
    const checked = await checkChildStart(tx, deps, spec, named);
    if (isRefused(checked)) return { outcome: checked };
    // A free slot of this process's worker: the child is inserted claimed and executed once the transaction
    // committed, with no queue hop and no claim of its own. Taken only now, when nothing refused the start.
    if (spec.awaited === true) progress.reservation ??= deps.localStarts?.reserve();
    const written = await writeChildRun(tx, deps, spec, checked, {
      adopted,
      reservation: progress.reservation,
      trace,
    });
    return { outcome: { kind: 'started', run: written.run, relation: written.relation }, written };
  }
}

/** The creator's held checkpoint, written by a start that wrote no child: its events as appended. */
async function commitAdoptedAlone(tx: Storage, adopted: AdoptedCommit): Promise<RunEvent[] | undefined> {
  await tx.messages.appendBatches([adopted.messages]);
  const [events] = await tx.events.appendBatches([adopted.events]);
  return events;
}

/**
 * After the commit: the parent's stream hears of the child, which runs in the slot it took or is queued. A child
 * run here does not wait for the announcement's round trip: what it publishes later leaves behind it, in order,
 * on this process's bus connection (docs/scale-out.md, "What scales how"). A queued child may run in another
 * process, so it is queued only once the announcement is out.
 */
async function announceStarted(
  deps: ChildRunDeps,
  written: WrittenChildRun,
  reservation: RunReservation | undefined,
): Promise<void> {
  const announced = publishAllQuietly(deps.bus, written.announced);
  deps.handoffs?.offer(written.run.id, written.appended, written.context);
  const runsHere = written.run.status === 'running' ? reservation : undefined;
  runsHere?.start(written.run);
  await announced;
  if (!runsHere) await deps.queue.enqueue(written.run.id);
}

/** A run already started under this request id: the same start replayed, if it is this parent's child. */
async function replayed(reader: Storage, spec: ChildRunSpec, run: Run): Promise<ChildRunStart> {
  const relation = run.subagent_thread_relation_id
    ? await reader.subagentThreads.get(run.subagent_thread_relation_id)
    : undefined;
  const owned =
    spec.parentRunId !== undefined &&
    isOwnedChild(run, { id: spec.parentRunId, user_id: spec.userId }) &&
    run.run_type === spec.kind &&
    (run.subagent_thread_relation_id === null || relation !== undefined);
  return owned ? { kind: 'existing', run, relation } : refused(REQUEST_ID_CONFLICT);
}
