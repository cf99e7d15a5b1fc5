import type { RunEventBatch, StepMessages, Storage } from '../../core/ports/storage.js';
import type { AdoptedCommit } from '../../core/tools/adopt-checkpoint.js';
import type { RunEvent, RunEventBody, RunEventDraft, RunEventType } from '../../core/records/run-event.js';

/** An event not yet appended, one variant per type: its lineage fields are added when it is. */
export type PendingEvent = RunEventDraft;

/**
 * The events of a commit, appended once, in ONE insert: buffered text first, then the commit's events, then
 * `tail` (e.g. an ending's `end`, which must come last); other runs' batches in `besides` (a parent's
 * `subagent_update`) go in the same statement. Returns what it appended to this run's stream; the commit
 * publishes the rest after it.
 */
export type AppendBatch = (tail?: PendingEvent[], besides?: readonly RunEventBatch[]) => Promise<RunEvent[]>;

/** Which try of a commit `alongside` runs in. */
export interface CommitAttempt {
  /**
   * The commit runs again because its ending's speculative compare-and-set missed (`EndingRaced`): this time
   * the ending waits for its compare-and-set before it appends anything.
   */
  careful: boolean;
}

export interface RunEmitter {
  /**
   * Appends the buffered text and one event, and other runs' batches (`besides`), in one statement, then
   * publishes them in that order. Returns the event.
   */
  emit<K extends RunEventType>(
    type: K,
    payload: RunEventBody<K>,
    besides?: readonly RunEventBatch[],
  ): Promise<RunEvent>;
  /**
   * Appends the buffered text and `events` and runs `alongside` (e.g. a checkpoint, or the run's ending), all
   * in ONE transaction, then publishes what it appended: a step's checkpoint and its events cost one commit,
   * and no reader sees one without the other. `alongside` appends the batch with `append` when its order
   * matters (an ending moves the status first, then adds its `end` to the batch); if it does not, the batch is
   * appended after it. Events `alongside` returns (appended to other streams) are published after the batch;
   * the batch is what `commit` returns. The transaction is a shared-commit one: the commits of runs executing
   * at once (a fan-out's children) share one COMMIT, each still atomic on its own.
   */
  commit(
    events: PendingEvent[],
    alongside?: (tx: Storage, append: AppendBatch, attempt: CommitAttempt) => Promise<RunEvent[] | void>,
    /** A checkpoint: messages of the run's thread, written first. */
    messages?: StepMessages,
  ): Promise<RunEvent[]>;
  /**
   * Holds an event that opens the stream (a root run's attempt `metadata`) until the next append, which it
   * leads, or a short timer: a run whose first step commits at once spends no statement of its own on it,
   * and a slow first step delays it by DELTA_FLUSH_MS at most.
   */
  announce(type: 'metadata', payload: RunEventBody<'metadata'>): void;
  /**
   * `commit`, held back: the run's next commit writes it in its own transaction, ahead of its own rows and
   * events; an `emit` or `flush` writes it first, and so does a short timer, so it is never held for long.
   * For the steps of tools whose only effect is a child start (`TroupeTool.adoptsCheckpoint`), whose replay
   * after a crash finds the child again: their checkpoints then cost no commit of their own. A child start
   * may take the held commits into its own transaction (`adopt`).
   */
  hold(events: PendingEvent[], messages: StepMessages): void;
  /**
   * The held commits, for the caller's transaction to write; undefined when nothing is held, or when work
   * queued since must write them first. Until the caller settles, this run's other appends wait, so its
   * events keep their place in the stream, and so does another adopter: it gets undefined once the first
   * settled, and its transaction cannot commit first.
   */
  adopt(): Promise<AdoptedCommit | undefined>;
  /** Buffers streamed text; flushed before any other event, on size, or on a short timer. */
  delta(text: string): void;
  /** Writes the held commits and the buffered text now, and waits for an adopted commit to settle. */
  flush(): Promise<void>;
}
