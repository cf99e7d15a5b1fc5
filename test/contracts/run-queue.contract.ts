import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { TroupeError } from '../../src/core/errors.js';
import type { RunQueue } from '../../src/core/ports/run-queue.js';

export interface RunQueueContractOptions {
  concurrency: number;
  /** Must receive every handler failure; the adapter must not let one escape as an unhandled rejection. */
  onError: (runId: string, error: unknown) => void;
}

export interface OpenedRunQueue {
  queue: RunQueue;
  /** Releases whatever `open` created. Runs after every test, also after a test that closed the queue itself. */
  close(): Promise<void>;
}

/** Bounds a wait that should finish at once, so a lost run id fails with what did arrive, not a bare timeout. */
const HANDOFF_WAIT_MS = 5_000;

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
}

/** Opens every gate when the test ends, so a failed assertion cannot leave `close()` in `afterEach` waiting forever. */
function openGatesAfterTest(gates: Iterable<Deferred>): void {
  onTestFinished(() => {
    for (const gate of gates) gate.resolve();
  });
}

function createDeferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((onResolve) => {
    resolve = onResolve;
  });
  return { promise, resolve };
}

/** Records run ids in arrival order and lets a test wait until some number of them arrived. */
interface Recorder {
  readonly ids: string[];
  record(runId: string): void;
  waitForCount(count: number): Promise<string[]>;
}

function createRecorder(label: string): Recorder {
  const ids: string[] = [];
  const waiters = new Set<{ count: number; resolve: () => void }>();
  const settle = (): void => {
    for (const waiter of waiters) {
      if (ids.length >= waiter.count) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  };
  return {
    ids,
    record(runId) {
      ids.push(runId);
      settle();
    },
    waitForCount(count) {
      return new Promise<string[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(new Error(`expected ${count} ${label} run ids, got ${ids.length}: ${ids.join(', ')}`));
        }, HANDOFF_WAIT_MS);
        const waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve([...ids]);
          },
        };
        waiters.add(waiter);
        settle();
      });
    },
  };
}

/** Lets every handler the queue could start right now actually start; used to show that nothing more does. */
const settleIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const runIds = (count: number): string[] => Array.from({ length: count }, () => randomUUID());

/**
 * The behaviour every `RunQueue` adapter shares. `open` gets the concurrency under test and an `onError` to
 * wire to the adapter's failure reporting. Run ids are fresh UUIDs per test, so an adapter backed by a shared
 * server needs only a fresh queue name per `open`.
 */
export function describeRunQueueContract(
  adapterName: string,
  open: (options: RunQueueContractOptions) => Promise<OpenedRunQueue>,
): void {
  describe(`RunQueue contract: ${adapterName}`, () => {
    let opened: OpenedRunQueue | undefined;
    let errors: { runId: string; error: unknown }[];

    async function openQueue(concurrency: number): Promise<RunQueue> {
      errors = [];
      opened = await open({ concurrency, onError: (runId, error) => errors.push({ runId, error }) });
      return opened.queue;
    }

    afterEach(async () => {
      await opened?.close();
      opened = undefined;
    });

    it('buffers run ids enqueued before process and hands them over in FIFO order', async () => {
      const queue = await openQueue(1);
      const ids = runIds(5);
      for (const runId of ids) await queue.enqueue(runId);
      await settleIo();

      const handled = createRecorder('handled');
      queue.process((runId) => {
        handled.record(runId);
        return Promise.resolve();
      });

      expect(await handled.waitForCount(ids.length)).toEqual(ids);
    });

    it('starts handlers in FIFO order when several run at once', async () => {
      const queue = await openQueue(3);
      const started = createRecorder('started');
      queue.process((runId) => {
        started.record(runId);
        return Promise.resolve();
      });
      const ids = runIds(7);

      for (const runId of ids) await queue.enqueue(runId);

      expect(await started.waitForCount(ids.length)).toEqual(ids);
    });

    it('runs up to `concurrency` handlers at once and never more', async () => {
      const queue = await openQueue(2);
      const ids = runIds(5);
      const gates = new Map(ids.map((runId) => [runId, createDeferred()]));
      openGatesAfterTest([...gates.values()]);
      const started = createRecorder('started');
      const finished = createRecorder('finished');
      let inFlight = 0;
      let maxInFlight = 0;
      queue.process(async (runId) => {
        inFlight += 1;
        maxInFlight = Math.max(maxInFlight, inFlight);
        started.record(runId);
        try {
          await gates.get(runId)?.promise;
        } finally {
          inFlight -= 1;
          finished.record(runId);
        }
      });
      const gate = (index: number): Deferred => {
        const deferred = gates.get(ids[index] ?? '');
        if (!deferred) throw new Error(`no gate for run ${index}`);
        return deferred;
      };

      for (const runId of ids) await queue.enqueue(runId);

      // Both slots fill while nothing has finished: the queue really runs handlers side by side.
      expect(await started.waitForCount(2)).toEqual(ids.slice(0, 2));
      await settleIo();
      expect(started.ids).toHaveLength(2);

      // Finishing out of order frees a slot all the same.
      gate(1).resolve();
      expect(await started.waitForCount(3)).toEqual(ids.slice(0, 3));
      await settleIo();
      expect(started.ids).toHaveLength(3);

      gate(0).resolve();
      gate(2).resolve();
      expect(await started.waitForCount(5)).toEqual(ids);
      gate(3).resolve();
      gate(4).resolve();
      await finished.waitForCount(5);

      expect(maxInFlight).toBe(2);
      expect(errors).toEqual([]);
    });

    it('reports a failing handler to onError and keeps going, with no unhandled rejection', async () => {
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown): void => {
        unhandled.push(reason);
      };
      process.on('unhandledRejection', onUnhandled);
      try {
        const queue = await openQueue(1);
        const [rejecting, throwing, healthy] = runIds(3) as [string, string, string];
        const rejection = new Error('handler rejected (expected by the test)');
        const thrown = new Error('handler threw (expected by the test)');
        const handled = createRecorder('handled');
        queue.process((runId) => {
          if (runId === throwing) throw thrown;
          handled.record(runId);
          return runId === rejecting ? Promise.reject(rejection) : Promise.resolve();
        });

        for (const runId of [rejecting, throwing, healthy]) await queue.enqueue(runId);

        // Concurrency 1: `healthy` only runs if both failures gave their slot back.
        expect(await handled.waitForCount(2)).toEqual([rejecting, healthy]);
        await settleIo();
        expect(errors).toEqual([
          { runId: rejecting, error: rejection },
          { runId: throwing, error: thrown },
        ]);
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    });

    it('close waits for the handlers in flight', async () => {
      const queue = await openQueue(2);
      const [first, second] = runIds(2) as [string, string];
      const gates = new Map([
        [first, createDeferred()],
        [second, createDeferred()],
      ]);
      openGatesAfterTest([...gates.values()]);
      const started = createRecorder('started');
      queue.process(async (runId) => {
        started.record(runId);
        await gates.get(runId)?.promise;
      });
      await queue.enqueue(first);
      await queue.enqueue(second);
      await started.waitForCount(2);

      let closed = false;
      const closing = queue.close().then(() => {
        closed = true;
      });
      await settleIo();
      expect(closed).toBe(false);

      gates.get(first)?.resolve();
      await settleIo();
      expect(closed).toBe(false);

      gates.get(second)?.resolve();
      await closing;
      expect(closed).toBe(true);
    });

    it('close stops taking work: buffered run ids are not started', async () => {
      const queue = await openQueue(1);
      const [running, waiting] = runIds(2) as [string, string];
      const gate = createDeferred();
      openGatesAfterTest([gate]);
      const started = createRecorder('started');
      queue.process(async (runId) => {
        started.record(runId);
        await gate.promise;
      });
      await queue.enqueue(running);
      await queue.enqueue(waiting);
      await started.waitForCount(1);

      const closing = queue.close();
      gate.resolve();
      await closing;
      await settleIo();

      expect(started.ids).toEqual([running]);
    });

    it('rejects enqueue after close with an internal error', async () => {
      const queue = await openQueue(1);
      await queue.close();

      const enqueued = queue.enqueue(randomUUID());
      await expect(enqueued).rejects.toBeInstanceOf(TroupeError);
      await expect(enqueued).rejects.toMatchObject({ code: 'internal' });
    });

    it('close is idempotent and needs no handler', async () => {
      const queue = await openQueue(1);
      await queue.enqueue(randomUUID());

      await queue.close();
      await expect(queue.close()).resolves.toBeUndefined();
    });
  });
}
