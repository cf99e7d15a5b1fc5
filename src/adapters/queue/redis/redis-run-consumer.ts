import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { delay } from '../../../core/delay.js';
import { endRedisConnection } from '../../redis/end-redis-connection.js';

/** What the run queue's consumer needs from the queue (create-redis-run-queue.ts). */
export interface RedisRunConsumerOptions {
  url: string;
  redisOptions: RedisOptions | undefined;
  /** The queue's command connection: `CLIENT UNBLOCK` at stop, and an id popped at stop put back. */
  command: Redis;
  queueKey: string;
  concurrency: number;
  blockSeconds: number;
  handler: (runId: string) => Promise<void>;
  /** Whether the queue is closing: the loop takes nothing more. */
  closed: () => boolean;
  reportError: (runId: string, error: unknown) => void;
  reportConnectionError: (error: unknown) => void;
}

export interface RedisRunConsumer {
  /** Ends the loop (an id it popped meanwhile goes back), then waits for the handlers in flight. */
  stop(): Promise<void>;
}

const RETRY_DELAY_MS = 200;

/**
 * The pop loop: while fewer than `concurrency` handlers run, one blocked `BZPOPMIN` on a dedicated
 * connection. `close` wakes it with `CLIENT UNBLOCK`, which ends the pop without taking an id; an id popped
 * in the same instant is put back with its score, so a closing consumer starts nothing and loses nothing.
 */
export function startRedisRunConsumer(options: RedisRunConsumerOptions): RedisRunConsumer {
  const {
    command,
    queueKey,
    concurrency,
    blockSeconds,
    handler,
    closed,
    reportError,
    reportConnectionError,
  } = options;
  const blocking = new Redis(options.url, { ...options.redisOptions, maxRetriesPerRequest: null });
  blocking.on('error', reportConnectionError);
  let blockingId: number | undefined;
  blocking.on('close', () => (blockingId = undefined));
  const inFlight = new Set<Promise<void>>();
  let slotFreed: (() => void) | undefined;
  let stopLoop: () => void = () => undefined;
  // ioredis never settles a command of a connection disconnected while it reconnects: the loop's waits end
  // with `stop` too.
  const stopped = new Promise<undefined>((resolve) => (stopLoop = () => resolve(undefined)));
  const unlessStopped = <T>(pending: Promise<T>): Promise<T | undefined> => Promise.race([pending, stopped]);

  function start(runId: string): void {
    const running = (async () => {
      try {
        await handler(runId);
      } catch (error) {
        reportError(runId, error);
      }
    })().finally(() => {
      inFlight.delete(running);
      slotFreed?.();
    });
    inFlight.add(running);
  }

  async function popOnce(): Promise<void> {
    if (blockingId === undefined) {
      const id: unknown = await unlessStopped(blocking.client('ID'));
      if (typeof id === 'number') blockingId = id;
    }
    if (closed()) return;
    const popped = await unlessStopped(blocking.bzpopmin(queueKey, blockSeconds));
    if (!popped) return;
    const [, runId, score] = popped;
    if (closed()) {
      await unlessStopped(command.zadd(queueKey, 'NX', score, runId)).catch((error: unknown) =>
        reportError(runId, error),
      );
      return;
    }
    start(runId);
  }

  const loop = (async () => {
    while (!closed()) {
      if (inFlight.size >= concurrency) {
        await unlessStopped(new Promise<void>((resolve) => (slotFreed = resolve)));
        slotFreed = undefined;
        continue;
      }
      try {
        await popOnce();
      } catch (error) {
        if (closed()) return;
        reportConnectionError(error);
        await unlessStopped(delay(RETRY_DELAY_MS));
      }
    }
  })();

  return {
    async stop(): Promise<void> {
      slotFreed?.();
      let ended = false;
      void loop.then(() => (ended = true));
      // An UNBLOCK that reaches Redis before the pop does unblocks nothing: sent again until the loop ends.
      const deadline = Date.now() + (blockSeconds + 1) * 1000;
      while (!ended) {
        if (blockingId === undefined || command.status !== 'ready' || Date.now() > deadline) {
          stopLoop();
          break;
        }
        await command.client('UNBLOCK', blockingId).catch(() => undefined);
        await Promise.race([loop, delay(20)]);
      }
      await loop;
      await Promise.all(inFlight);
      await endRedisConnection(blocking);
    },
  };
}
