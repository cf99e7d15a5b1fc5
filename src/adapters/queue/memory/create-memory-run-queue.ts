import { TroupeError } from '../../../core/errors.js';
import type { RunQueue } from '../../../core/ports/run-queue.js';

export interface MemoryRunQueueOptions {
  /** Handlers in flight at once; a positive integer. */
  concurrency: number;
  /**
   * Told about every handler that throws or rejects. The queue swallows the failure either way: the run
   * service records run failures itself, and a rejected handler must never become an unhandled rejection
   * that takes the process down.
   */
  onError?: (runId: string, error: unknown) => void;
}

/**
 * The embedded-mode queue: a FIFO buffer in this process. Nothing survives a restart; the database is the
 * source of truth for which runs still need a worker.
 */
export function createMemoryRunQueue(options: MemoryRunQueueOptions): RunQueue {
  const { concurrency, onError } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TroupeError(
      'config_invalid',
      `Run queue concurrency must be a positive integer, got ${concurrency}`,
    );
  }

  const buffered: string[] = [];
  const inFlight = new Set<Promise<void>>();
  let handler: ((runId: string) => Promise<void>) | undefined;
  let closed = false;

  function reportError(runId: string, error: unknown): void {
    try {
      onError?.(runId, error);
    } catch {
      // The reporter is the last resort; there is nowhere left to send its own failure.
    }
  }

  function pump(): void {
    while (handler && !closed && inFlight.size < concurrency) {
      const runId = buffered.shift();
      if (runId === undefined) return;
      const handle = handler;
      // Calling the handler from a microtask rather than inline keeps `enqueue` free of reentrancy, and turns a
      // handler that throws synchronously into a rejection like any other.
      const task: Promise<void> = Promise.resolve()
        .then(() => handle(runId))
        .catch((error: unknown) => reportError(runId, error))
        .finally(() => {
          inFlight.delete(task);
          pump();
        });
      inFlight.add(task);
    }
  }

  return {
    enqueue(runId) {
      if (closed) {
        return Promise.reject(
          new TroupeError('internal', `The run queue is closed; run ${runId} was not queued`),
        );
      }
      buffered.push(runId);
      pump();
      return Promise.resolve();
    },

    process(nextHandler) {
      if (closed) throw new TroupeError('internal', 'The run queue is closed');
      if (handler) throw new TroupeError('internal', 'The run queue already has a handler');
      handler = nextHandler;
      pump();
    },

    async close() {
      // Buffered ids are dropped, not run: those runs are still pending in storage, and delivery is at least
      // once anyway, so recovering them is the run service's job on the next start-up.
      closed = true;
      buffered.length = 0;
      // Tasks never reject (errors are caught above), and once closed no new task can join the set.
      await Promise.all(inFlight);
    },
  };
}
