/**
 * Hands run ids to workers. Delivery is at least once: the run service claims a run with a
 * compare-and-set before executing it, so a duplicate delivery is a no-op.
 */
export interface RunQueue {
  /**
   * Never waits for an outage of a queue outside the process (Redis): the id is then held in this process and
   * queued once the queue is back (docs/scale-out.md, "Outages"). The run row, already committed, stays pending.
   */
  enqueue(runId: string): Promise<void>;
  /** Starts consuming; `handler` is called with at most the queue's concurrency in flight. */
  process(handler: (runId: string) => Promise<void>): void;
  /**
   * Calls `listener` whenever a queue outside the process is back after an outage, which may have lost jobs (a
   * Redis that restarted empty); returns its stop. Absent on a queue inside the process.
   */
  onRestored?(listener: () => void): () => void;
  /**
   * Whether a queue outside the process (Redis) is reachable now, read from its connection's state without a
   * round trip (readiness probes). Absent on a queue inside the process, which never goes down.
   */
  readonly health?: { readonly connected: boolean };
  /** Stops taking new work and waits for handlers in flight. */
  close(): Promise<void>;
}
