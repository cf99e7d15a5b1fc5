import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import type { Job } from 'bullmq';
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { TroupeError } from '../../../core/errors.js';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import { redactUrl } from '../../../core/redact-url.js';

/*
 * The scale-out run queue: a BullMQ queue in Redis. Any process may enqueue (API processes only do that);
 * processes that call `process` also run a BullMQ Worker with the configured concurrency.
 *
 * Job ids. A run is enqueued as job `run-{runId}` (BullMQ refuses custom ids with one `:`), so the
 * reconciler's periodic re-enqueue of pending runs collapses onto a job that is still waiting instead of
 * piling up duplicates behind busy workers. Finished jobs are removed at once, so a run enqueued again
 * later (an approval decided, a lease that expired) gets a fresh job. When the job of that id is still
 * active, which is what a worker killed mid-run leaves behind until BullMQ's stalled check notices, the run
 * is enqueued under a unique id instead: a duplicate is harmless (the executor claims runs with a
 * compare-and-set), a lost run is not.
 *
 * Failures. Handler failures are caught here and reported to `onError`; BullMQ never retries a run (the
 * run service records failures and the lease reconciler recovers runs). Connection trouble is reported to
 * `onConnectionError`.
 */

export interface BullmqRunQueueOptions {
  /** `redis://[:password@]host:port[/db]` or `rediss://…`. */
  url: string;
  /** Handlers in flight at once in this process; a positive integer. */
  concurrency: number;
  /** BullMQ queue name; default `runs`. Must not contain `:`. */
  queueName?: string;
  /** BullMQ key prefix; default `troupe`. */
  prefix?: string;
  /** Told about every handler that throws or rejects; the queue swallows the failure. */
  onError?: (runId: string, error: unknown) => void;
  /** Told about Redis connection errors of the queue and the worker. */
  onConnectionError?: (error: unknown) => void;
  /** Extra ioredis options (TLS, timeouts). `maxRetriesPerRequest` is always null, as BullMQ requires. */
  redisOptions?: RedisOptions;
}

interface RunJobData {
  runId: string;
}

/**
 * How long an enqueue waits for Redis before it holds the run in this process instead: ioredis waits through
 * reconnects (BullMQ needs `maxRetriesPerRequest: null`), and a request must not hang for an outage's length.
 */
const ENQUEUE_WAIT_MS = 1_000;
const DEFAULT_QUEUE_NAME = 'runs';
const DEFAULT_PREFIX = 'troupe';
const CONNECT_TIMEOUT_MS = 10_000;
/** States in which a job has not started yet: enqueueing the same run again adds nothing. */
const NOT_STARTED = new Set(['waiting', 'delayed', 'prioritized', 'waiting-children']);

export function jobIdFor(runId: string): string {
  return `run-${runId}`;
}

/** The scale-out queue; resolves once Redis answered, so a wrong URL fails at start-up. */
export async function createBullmqRunQueue(options: BullmqRunQueueOptions): Promise<RunQueue> {
  const { concurrency } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TroupeError(
      'config_invalid',
      `Run queue concurrency must be a positive integer, got ${concurrency}`,
    );
  }
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const prefix = options.prefix ?? DEFAULT_PREFIX;

  function reportConnectionError(error: unknown): void {
    try {
      options.onConnectionError?.(error);
    } catch {
      // The reporter is the last resort; there is nowhere left to send its own failure.
    }
  }

  function reportError(runId: string, error: unknown): void {
    try {
      options.onError?.(runId, error);
    } catch {
      // As above.
    }
  }

  // One connection shared by the Queue and the Worker; BullMQ duplicates it for the Worker's blocking reads.
  const connection = new Redis(options.url, { ...options.redisOptions, maxRetriesPerRequest: null });
  connection.on('error', reportConnectionError);
  let timer: NodeJS.Timeout | undefined;
  let failStartup: (error: unknown) => void = () => undefined;
  try {
    // With maxRetriesPerRequest null a PING waits through reconnects forever; the first connection error
    // (refused, unknown host, bad password) fails start-up at once instead.
    await Promise.race([
      connection.ping(),
      new Promise<never>((_, reject) => {
        failStartup = reject;
        connection.once('error', failStartup);
        timer = setTimeout(
          () => reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS} ms`)),
          CONNECT_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    connection.disconnect();
    throw new TroupeError(
      'config_invalid',
      `Cannot reach Redis at ${redactUrl(options.url, 'Redis URL')}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  } finally {
    clearTimeout(timer);
    connection.off('error', failStartup);
  }

  const queue = new Queue<RunJobData>(queueName, {
    connection,
    prefix,
    defaultJobOptions: { attempts: 1, removeOnComplete: true, removeOnFail: true },
  });
  queue.on('error', reportConnectionError);
  let worker: Worker<RunJobData> | undefined;
  let closed = false;
  let closing: Promise<void> | undefined;

  async function enqueue(runId: string, created = false): Promise<void> {
    const jobId = jobIdFor(runId);
    // A run made just now has no job yet: the look-up would be a round trip on every request that starts a run.
    const existing = created ? undefined : await queue.getJob(jobId);
    if (existing) {
      const state = await existing.getState();
      if (NOT_STARTED.has(state)) return;
      if (state !== 'unknown') {
        // Active (possibly on a worker that died), or finished but not yet removed: a new job is needed.
        await queue.add('run', { runId }, { jobId: `${jobId}-${randomUUID()}` });
        return;
      }
    }
    await queue.add('run', { runId }, { jobId });
  }

  // Runs whose enqueue met an outage, queued once Redis is back (a run's job id makes a repeat add nothing).
  const held = new Set<string>();
  const restoredListeners = new Set<() => void>();
  let flushing: Promise<void> | undefined;
  async function flushHeld(): Promise<void> {
    for (const runId of [...held]) {
      if (closed || connection.status !== 'ready') return;
      try {
        await enqueue(runId);
        held.delete(runId);
      } catch (error) {
        reportError(runId, error);
        return;
      }
    }
  }
  const onReady = (): void => {
    flushing ??= flushHeld().finally(() => (flushing = undefined));
    for (const listener of [...restoredListeners]) {
      try {
        listener();
      } catch (error) {
        reportConnectionError(error);
      }
    }
  };
  // 'ready' comes again after every reconnect: the first one was awaited above.
  connection.on('ready', onReady);

  /** Enqueues at once when Redis answers in time; otherwise the run is held and queued when it is back. */
  async function enqueueOrHold(runId: string, created: boolean): Promise<void> {
    if (connection.status !== 'ready') {
      held.add(runId);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const attempt = enqueue(runId, created);
    const inTime = await Promise.race([
      attempt.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ENQUEUE_WAIT_MS))),
    ]).finally(() => clearTimeout(timer));
    if (inTime) return;
    held.add(runId);
    // It may still land once Redis answers; the held copy then adds nothing.
    attempt.catch((error: unknown) => reportError(runId, error));
  }

  return {
    async enqueue(runId, options) {
      if (closed) {
        throw new TroupeError('internal', `The run queue is closed; run ${runId} was not queued`);
      }
      await enqueueOrHold(runId, options?.created === true);
    },

    health: {
      get connected() {
        return !closed && connection.status === 'ready';
      },
    },

    onRestored(listener) {
      restoredListeners.add(listener);
      return () => restoredListeners.delete(listener);
    },

    process(handler) {
      if (closed) throw new TroupeError('internal', 'The run queue is closed');
      if (worker) throw new TroupeError('internal', 'The run queue already has a handler');
      worker = new Worker<RunJobData>(
        queueName,
        async (job: Job<RunJobData>) => {
          const { runId } = job.data;
          try {
            await handler(runId);
          } catch (error) {
            reportError(runId, error);
          }
        },
        { connection, prefix, concurrency, autorun: true },
      );
      worker.on('error', reportConnectionError);
    },

    close() {
      closed = true;
      closing ??= (async () => {
        connection.off('ready', onReady);
        restoredListeners.clear();
        if (connection.status === 'ready') {
          // Waits for the handlers in flight; no new job is fetched once closing.
          await worker?.close();
          await queue.close();
          await connection.quit().catch(() => connection.disconnect());
          return;
        }
        // Redis is away, and BullMQ's graceful close would wait for it: the executor handed its runs back
        // before the queue closes, so only the connections are left to drop.
        await worker?.close(true).catch(() => undefined);
        // The queue's connection is this one: dropping it is the queue's close.
        connection.disconnect();
      })();
      return closing;
    },
  };
}
