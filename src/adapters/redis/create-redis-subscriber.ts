import { Redis, type RedisOptions } from 'ioredis';
import { endRedisConnection } from './end-redis-connection.js';

/*
 * Shared by the Redis adapters of several ports (the event bus's signals, the model admission's announcements),
 * as storage/sql is by the two SQL stores.
 */

export interface RedisSubscriber {
  /** The subscribed connection: listen to its `message` and `close` events; run nothing else on it. */
  readonly connection: Redis;
  /** Every channel asked for is confirmed subscribed on the connection as it is now (no reconnection since). */
  readonly live: boolean;
  /** Resolves once Redis confirmed the subscription, after the reconnection under way if there is one. */
  subscribe(channel: string): Promise<void>;
  /** Ends the connection; a subscription still waiting is rejected. */
  close(): Promise<void>;
}

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * A connection dedicated to SUBSCRIBE that subscribes again after every reconnection on its own terms.
 * ioredis's `autoResubscribe` sends that SUBSCRIBE with no handler attached: when the connection closes before
 * Redis answers it — a QUIT sent while the reconnection's ready check was in flight — the rejection is unhandled,
 * which ends a Node process (docs/scale-out.md, "Outages"). Here every SUBSCRIBE's outcome is observed, and
 * `live` says when the channels are actually back, not merely the socket.
 */
export function createRedisSubscriber(
  url: string,
  options: RedisOptions | undefined,
  report: (error: unknown) => void,
): RedisSubscriber {
  const connection = new Redis(url, {
    maxRetriesPerRequest: null,
    ...options,
    autoResubscribe: false,
  });
  const wanted = new Set<string>();
  const confirmed = new Set<string>();
  const waiters = new Map<string, Waiter[]>();
  // Bumped by every close: an answer to a SUBSCRIBE sent before it says nothing about the connection now.
  let epoch = 0;
  let closed = false;

  const settle = (channel: string, error?: unknown): void => {
    const waiting = waiters.get(channel) ?? [];
    waiters.delete(channel);
    for (const waiter of waiting) {
      if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  };

  const send = (channels: string[]): void => {
    const sentIn = epoch;
    connection.subscribe(...channels).then(
      () => {
        if (closed || sentIn !== epoch) return;
        for (const channel of channels) {
          confirmed.add(channel);
          settle(channel);
        }
      },
      (error: unknown) => {
        // A connection that went away subscribes again when it is ready; only a refusal on a live one is final.
        if (closed || sentIn !== epoch) return;
        for (const channel of channels) {
          wanted.delete(channel);
          if (waiters.has(channel)) settle(channel, error);
          else report(error);
        }
      },
    );
  };

  connection.on('close', () => {
    epoch += 1;
    confirmed.clear();
  });
  connection.on('ready', () => {
    if (!closed && wanted.size > 0) send([...wanted]);
  });

  return {
    connection,
    get live() {
      if (connection.status !== 'ready') return false;
      for (const channel of wanted) if (!confirmed.has(channel)) return false;
      return true;
    },
    subscribe(channel) {
      if (closed) return Promise.reject(new Error('The Redis subscriber is closed'));
      if (confirmed.has(channel) && connection.status === 'ready') return Promise.resolve();
      const waiting = new Promise<void>((resolve, reject) => {
        waiters.set(channel, [...(waiters.get(channel) ?? []), { resolve, reject }]);
      });
      const sendNow = !wanted.has(channel) && connection.status === 'ready';
      wanted.add(channel);
      // Otherwise the next `ready` (or the SUBSCRIBE already in flight) carries it.
      if (sendNow) send([channel]);
      return waiting;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const channel of [...waiters.keys()]) {
        settle(channel, new Error('The Redis subscriber is closed'));
      }
      await endRedisConnection(connection);
    },
  };
}
