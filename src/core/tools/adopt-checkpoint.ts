import type { RunEvent } from '../records/run-event.js';
import type { RunEventBatch, ThreadMessageBatch } from '../ports/storage.js';

/** Takes the run's held checkpoint for the caller's transaction (`RunEmitter.adopt`). */
export type AdoptCheckpoint = () => Promise<AdoptedCommit | undefined>;

/** Held commits (`RunEmitter.hold`) that another transaction writes. */
export interface AdoptedCommit {
  /** Their messages, for the caller's transaction to write (`messages.appendBatches`, with its own). */
  readonly messages: ThreadMessageBatch;
  /** Their events, which the caller appends in the same transaction, ahead of anything of its own for this run. */
  readonly events: RunEventBatch;
  /**
   * After the caller's transaction: committed with the events it appended (published now, before anything
   * else of this run's), or rolled back (undefined), when the commits are held again as they were.
   */
  settle(appended: readonly RunEvent[] | undefined): Promise<void>;
}
