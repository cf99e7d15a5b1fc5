/**
 * The executor's concurrency limit: how many runs do work (model calls, tools) at once in this process.
 * A run that only waits for other runs (a parent in `task` or `subagent_await`) gives its slot back while it
 * waits, so waiting parents can never starve the children they wait for.
 */
export interface WorkerSlots {
  acquire(): Promise<void>;
  /** A slot now, or false: none is free, or runs are waiting for one (they come first). */
  tryAcquire(): boolean;
  release(): void;
  /** Runs `work` without holding a slot: releases before, reacquires after (FIFO with everyone else). */
  outside<T>(work: () => Promise<T>): Promise<T>;
  readonly inUse: number;
}

export function createWorkerSlots(capacity: number): WorkerSlots {
  let inUse = 0;
  const waiting: (() => void)[] = [];
  const acquire = (): Promise<void> => {
    if (inUse < capacity) {
      inUse += 1;
      return Promise.resolve();
    }
    // The releasing side hands its slot straight to the next waiter, so `inUse` stays as it is.
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else inUse -= 1;
  };
  return {
    acquire,
    tryAcquire() {
      if (inUse >= capacity || waiting.length > 0) return false;
      inUse += 1;
      return true;
    },
    release,
    async outside(work) {
      release();
      try {
        return await work();
      } finally {
        await acquire();
      }
    },
    get inUse() {
      return inUse;
    },
  };
}
