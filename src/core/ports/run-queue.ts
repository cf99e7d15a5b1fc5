/**
 * Hands run ids to workers. Delivery is at least once: the run service claims a run with a
 * compare-and-set before executing it, so a duplicate delivery is a no-op.
 */
export interface RunQueue {
  enqueue(runId: string): Promise<void>;
  /** Starts consuming; `handler` is called with at most the queue's concurrency in flight. */
  process(handler: (runId: string) => Promise<void>): void;
  /** Stops taking new work and waits for handlers in flight. */
  close(): Promise<void>;
}
