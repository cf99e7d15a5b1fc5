import { toTroupeError } from '../../../core/errors.js';
import type { EventBus } from '../../../core/ports/event-bus.js';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Agent } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import type { AgentLoopOutcome } from '../../agent-loop/agent-loop.js';
import { parkForInput } from '../human-input/park-for-input.js';
import { resumeWhenNothingPending } from '../human-input/resume-when-nothing-pending.js';
import { abortErrorOf, abortKindOf, RunAbortError } from '../../../core/runs/run-abort.js';
import type { AppendBatch, CommitAttempt, RunEmitter } from '../../events/run-emitter.js';
import type { TerminalWrite } from './run-finalizer.js';
import type { RunEndings } from '../run-endings.js';
import { publishSubagentUpdate } from '../children/publish-subagent-update.js';
import { cascadeAfterTerminal } from './cascade-after-terminal.js';

/** What the attempt loaded before it ended, when it got that far: spares the ending their reads. */
export interface AttemptFacts {
  agent: Agent;
  hasLedger: boolean;
}

export interface RunOutcomeDeps {
  storage: Storage;
  bus: EventBus;
  endings: RunEndings;
  workerId: string;
  queue?: RunQueue;
  onTerminal?: (run: Run) => Promise<void>;
  /** A run whose human input all arrived before it parked: the executor runs it again once its slot is free. */
  onDecidedBeforePark(runId: string): void;
}

/**
 * What an attempt's end writes (docs/runs.md): parked for a human, completed, interrupted at the step limit,
 * cancelled, failed, handed back on shutdown, or ended by its budget or inactivity. Every write is a
 * compare-and-set from the statuses the run may be in, through the state machine the repository enforces;
 * a terminal run then cascades to its subtree.
 */
export function createRunOutcomes(deps: RunOutcomeDeps) {
  const { storage, bus, endings } = deps;

  /** What a run's end does to the runs around it, once the end is committed. */
  const cascade = (ended: Run, facts: AttemptFacts | undefined) =>
    cascadeAfterTerminal(
      { storage, endings, ...(deps.onTerminal ? { onTerminal: deps.onTerminal } : {}) },
      ended,
      facts?.agent,
    );

  /** Ends the run from `from` (held by this worker) and cascades; false when the run was not there. */
  async function end(
    run: Run,
    from: 'running' | 'cancel_requested',
    write: TerminalWrite,
    facts: AttemptFacts | undefined,
  ): Promise<boolean> {
    const ended = await endings.finish({
      runId: run.id,
      expect: { status: [from], worker_id: deps.workerId },
      write,
      ...(facts ? { hasLedger: facts.hasLedger } : {}),
    });
    if (ended) await cascade(ended, facts);
    return ended !== undefined;
  }

  /**
   * The completed end of a running attempt, inside the transaction of its final checkpoint (`finish`), its
   * `end` in that checkpoint's batch of events: sent with its compare-and-set from the row this worker holds,
   * unless the commit runs again because that missed (`commit.careful`).
   */
  const completeIn = (
    tx: Storage,
    append: AppendBatch,
    run: Run,
    output: string,
    usage: Run['usage'],
    facts: AttemptFacts,
    commit: CommitAttempt,
  ) =>
    endings.endIn(tx, {
      runId: run.id,
      expect: { status: ['running'], worker_id: deps.workerId },
      write: { status: 'completed', output, usage },
      hasLedger: facts.hasLedger,
      append,
      ...(commit.careful ? {} : { held: run }),
    });

  /** A cancel committed while the attempt ran wins, as in Yuxi; its reason was recorded with the request. */
  const cancelIfRequested = (run: Run, usage: Run['usage'], facts: AttemptFacts | undefined) =>
    end(run, 'cancel_requested', { status: 'cancelled', usage }, facts);

  async function completed(
    run: Run,
    outcome: AgentLoopOutcome,
    usage: Run['usage'],
    facts?: AttemptFacts,
  ): Promise<void> {
    if (outcome.kind === 'input_required') {
      // Parked: no worker holds a run that waits for a human; the decision re-enqueues it, or, when every
      // decision came in before the park, the park hands it back as pending and this worker carries on.
      const parked = await parkForInput(storage, run.id, deps.workerId, usage);
      if (!parked) {
        await cancelIfRequested(run, usage, facts);
        return;
      }
      if (parked.status === 'pending') deps.onDecidedBeforePark(run.id);
      await publishSubagentUpdate(storage, bus, parked);
      if (deps.queue) await resumeWhenNothingPending(storage, deps.queue, run.id);
      return;
    }
    if (outcome.kind === 'completed' && outcome.ended) {
      await cascade(outcome.ended, facts);
      return;
    }
    const write: TerminalWrite =
      outcome.kind === 'completed'
        ? { status: 'completed', output: outcome.output, usage }
        : {
            status: 'interrupted',
            output: outcome.output,
            usage,
            error: { type: 'max_steps', message: 'The run stopped at its step limit without a final answer' },
          };
    if (!(await end(run, 'running', write, facts))) await cancelIfRequested(run, usage, facts);
  }

  async function afterError(
    run: Run,
    thrown: unknown,
    signal: AbortSignal,
    emitter: RunEmitter,
    usage: Run['usage'],
    facts?: AttemptFacts,
  ): Promise<void> {
    const reason = thrown instanceof RunAbortError ? thrown : abortErrorOf(signal);
    const kind = reason?.kind ?? abortKindOf(signal);
    if (kind === 'lease_lost') return;
    if ((kind === 'budget' || kind === 'inactive') && reason?.error) {
      await emitter.emit('error', { error: reason.error }).catch(() => undefined);
      const status = kind === 'budget' ? 'failed' : 'interrupted';
      if (await end(run, 'running', { status, error: reason.error, usage }, facts)) return;
    }
    if (kind === 'shutdown') {
      const released = await storage.runs.update(
        run.id,
        { status: ['running'], worker_id: deps.workerId },
        { status: 'pending', worker_id: null, lease_expires_at: null, usage },
      );
      if (released) return;
    }
    if (await cancelIfRequested(run, usage, facts)) return;
    const error = toTroupeError(thrown);
    const runError = { type: error.code, message: error.message };
    await emitter.emit('error', { error: runError }).catch(() => undefined);
    await end(run, 'running', { status: 'failed', error: runError, usage }, facts);
  }

  return { completed, afterError, completeIn };
}
