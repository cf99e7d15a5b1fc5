/**
 * The executor's concurrency limit: how many runs do work (tool calls, the steps between model calls) at
 * once in this process. A run that only waits gives its slot back while it waits: for other runs (a parent in
 * `task` or `subagent_await`), so waiting parents can never starve the children they wait for, and for a
 * provider (every model call, `ModelGateway`), so the providers' limits are the throttle, not the slots.
 */
export interface WorkerSlots {
  acquire(): Promise<void>;
  /** A slot now, or false: none is free, or runs are waiting for one (they come first). */
  tryAcquire(): boolean;
  release(): void;
  /**
   * Runs `work` without holding a slot: releases before, reacquires after. A run coming back takes the next
   * free slot before runs waiting to start: finishing the runs in flight keeps their number, and the memory
   * they hold, from growing with the queue.
   */
  outside<T>(work: () => Promise<T>): Promise<T>;
  /**
   * `outside` for work that may not wait at all: the slot is given up only once `work` has not settled
   * within `graceMs`. A model call that answers at once (a scripted model without latency) keeps its slot
   * and its place in the run's commits; one that waits on a provider frees the slot after the grace.
   */
  outsideOnceWaiting<T>(work: () => Promise<T>, graceMs: number): Promise<T>;
  readonly inUse: number;
}

export function createWorkerSlots(capacity: number): WorkerSlots {
  let inUse = 0;
  const starting: (() => void)[] = [];
  const returning: (() => void)[] = [];
  const take = (queue: (() => void)[]): Promise<void> => {
    if (inUse < capacity) {
      inUse += 1;
      return Promise.resolve();
    }
    // The releasing side hands its slot straight to the next waiter, so `inUse` stays as it is.
    return new Promise((resolve) => queue.push(resolve));
  };
  const release = (): void => {
    const next = returning.shift() ?? starting.shift();
    if (next) next();
    else inUse -= 1;
  };
  return {
    acquire: () => take(starting),
    tryAcquire() {
      if (inUse >= capacity || starting.length > 0 || returning.length > 0) return false;
      inUse += 1;
      return true;
    },
    release,
    async outside(work) {
      release();
      try {
        return await work();
      } finally {
        await take(returning);
      }
    },
    outsideOnceWaiting(work, graceMs) {
      return new Promise((resolve, reject) => {
        let released = false;
        const timer = setTimeout(() => {
          released = true;
          release();
        }, graceMs);
        const settle = async (finish: () => void) => {
          clearTimeout(timer);
          if (released) await take(returning);
          finish();
        };
        work().then(
          (value) => settle(() => resolve(value)),
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- whatever `work` threw passes through unchanged
          (error: unknown) => settle(() => reject(error)),
        );
      });
    },
    get inUse() {
      return inUse;
    },
  };
}
