import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { TroupeError } from '../../../core/errors.js';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import { redactUrl } from '../../../core/redact-url.js';
import { endRedisConnection } from '../../redis/end-redis-connection.js';
import { startRedisRunConsumer, type RedisRunConsumer } from './redis-run-consumer.js';

/*
 * The scale-out run queue: one Redis sorted set of run ids (docs/scale-out.md, "The run queue"). Any process
 * may enqueue (API processes only do that); processes that call `process` pop from it on a connection of their
 * own.
 *
 * - Enqueue is one script call: `INCR` a sequence and `ZADD NX` the run id with it as its score. Redis orders
 *   every process's enqueues (FIFO across processes), and a run id already waiting keeps its place, so the
 *   lease reconciler's periodic re-enqueue of pending runs collapses onto it instead of piling up duplicates.
 * - A consumer pops with `BZPOPMIN`: the blocked pop's answer is both the wake-up and the run id, one command
 *   per run, and Redis hands a new id to the consumer that has waited longest.
 * - Delivery is at least once, and a popped id that is never handled is recovered by the database, not by
 *   Redis: the executor claims a run with a compare-and-set (a duplicate is a no-op), and a run still pending
 *   after its id was popped (a worker killed between the pop and its claim, a pop answered into a connection
 *   that dropped) is queued again by the lease reconciler, at once after Redis reconnects and otherwise once it
 *   is two leases old.
 *
 * Why not BullMQ, which this adapter replaced: its jobs duplicate what the runs table already holds (state,
 * a lock renewed beside the run's lease, a stalled check beside the reconciler), and on the hot path it cost
 * four scripts per run and two blocking reads (BENCHMARKS.md, "The run queue, and three round trips fewer").
 */

export interface RedisRunQueueOptions {
  /** `redis://[:password@]host:port[/db]` or `rediss://…`. */
  url: string;
  /** Handlers in flight at once in this process; a positive integer. */
  concurrency: number;
  /** Prefix of the queue's keys; default `troupe:`. */
  keyPrefix?: string;
  /** Queue name (several queues can share one Redis); default `runs`. */
  queueName?: string;
  /** How long one blocked pop waits before it is sent again, in seconds; default 5. */
  blockSeconds?: number;
  /** Told about every handler that throws or rejects; the queue swallows the failure. */
  onError?: (runId: string, error: unknown) => void;
  /** Told about Redis connection errors. */
  onConnectionError?: (error: unknown) => void;
  /** Extra ioredis options (TLS, timeouts). */
  redisOptions?: RedisOptions;
}

/**
 * How long an enqueue waits for Redis before it holds the run in this process instead: a request must not
 * hang for an outage's length.
 */
const ENQUEUE_WAIT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 10_000;

/** KEYS[1] the queue, KEYS[2] its sequence; ARGV[1] the run id. */
const ENQUEUE_SCRIPT = `
local seq = redis.call('INCR', KEYS[2])
return redis.call('ZADD', KEYS[1], 'NX', seq, ARGV[1])`;

type Enqueuer = Redis & {
  troupeEnqueue(queue: string, sequence: string, runId: string): Promise<number>;
};

/** The scale-out queue; resolves once Redis answered, so a wrong URL fails at start-up. */
export async function createRedisRunQueue(options: RedisRunQueueOptions): Promise<RunQueue> {
  const { concurrency } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new TroupeError(
      'config_invalid',
      `Run queue concurrency must be a positive integer, got ${concurrency}`,
    );
  }
  const base = `${options.keyPrefix ?? 'troupe:'}${options.queueName ?? 'runs'}`;
  const queueKey = `${base}:queue`;
  const sequenceKey = `${base}:seq`;
  const blockSeconds = options.blockSeconds ?? 5;

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

  // ioredis waits through reconnects; an enqueue races its own timer instead (enqueueOrHold).
  const command = new Redis(options.url, {
    ...options.redisOptions,
    maxRetriesPerRequest: null,
  }) as Enqueuer;
  command.defineCommand('troupeEnqueue', { numberOfKeys: 2, lua: ENQUEUE_SCRIPT });
  command.on('error', reportConnectionError);
  try {
    await startedInTime(command);
  } catch (error) {
    command.disconnect();
    throw new TroupeError(
      'config_invalid',
      `Cannot reach Redis at ${redactUrl(options.url, 'Redis URL')}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }

  let closed = false;
  let closing: Promise<void> | undefined;
  let consumer: RedisRunConsumer | undefined;

  // Runs whose enqueue met an outage, queued once Redis is back (an id already waiting adds nothing).
  const held = new Set<string>();
  const restoredListeners = new Set<() => void>();
  let flushing: Promise<void> | undefined;
  async function flushHeld(): Promise<void> {
    for (const runId of [...held]) {
      if (closed || command.status !== 'ready') return;
      try {
        await command.troupeEnqueue(queueKey, sequenceKey, runId);
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
  command.on('ready', onReady);

  /** Enqueues at once when Redis answers in time; otherwise the run is held and queued when it is back. */
  async function enqueueOrHold(runId: string): Promise<void> {
    if (command.status !== 'ready') {
      held.add(runId);
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const attempt = command.troupeEnqueue(queueKey, sequenceKey, runId);
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
    async enqueue(runId) {
      if (closed) {
        throw new TroupeError('internal', `The run queue is closed; run ${runId} was not queued`);
      }
      await enqueueOrHold(runId);
    },

    health: {
      get connected() {
        return !closed && command.status === 'ready';
      },
    },

    onRestored(listener) {
      restoredListeners.add(listener);
      return () => restoredListeners.delete(listener);
    },

    process(handler) {
      if (closed) throw new TroupeError('internal', 'The run queue is closed');
      if (consumer) throw new TroupeError('internal', 'The run queue already has a handler');
      consumer = startRedisRunConsumer({
        url: options.url,
        redisOptions: options.redisOptions,
        command,
        queueKey,
        concurrency,
        blockSeconds,
        handler,
        closed: () => closed,
        reportError,
        reportConnectionError,
      });
    },

    close() {
      closed = true;
      closing ??= (async () => {
        command.off('ready', onReady);
        restoredListeners.clear();
        await consumer?.stop();
        await endRedisConnection(command);
      })();
      return closing;
    },
  };
}

/**
 * Resolves once Redis answers a PING. With `maxRetriesPerRequest: null` a PING waits through reconnects forever;
 * the first connection error (refused, unknown host, bad password) fails start-up at once instead.
 */
async function startedInTime(connection: Redis): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let failStartup: (error: unknown) => void = () => undefined;
  try {
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
  } finally {
    clearTimeout(timer);
    connection.off('error', failStartup);
  }
}
