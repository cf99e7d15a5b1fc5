import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { delay, eventually } from '../../../test/helpers/eventually.js';
import { startThrowawayRedis } from '../../../test/helpers/services/throwaway-redis.js';
import {
  serviceBinariesOrSkip,
  useThrowawayServer,
} from '../../../test/helpers/services/use-throwaway-server.js';
import { createRedisSubscriber, type RedisSubscriber } from './create-redis-subscriber.js';

/*
 * A redis-server of the test's own, stopped and started under the subscriber. Skipped, with the reason, when
 * redis-server is not installed.
 */
const binaries = serviceBinariesOrSkip('Redis subscriber across restarts');

// ioredis's ready check (INFO) is the last step before `ready`; wrapping it lets a test act in that window.
interface WithReadyCheck {
  status: Redis['status'];
  _readyCheck(callback: (...args: unknown[]) => void): void;
}

if (binaries) {
  describe('a Redis subscriber across restarts', () => {
    const redis = useThrowawayServer((dir, teardown) =>
      startThrowawayRedis(binaries.redisServer, dir, teardown),
    );
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    let opened: RedisSubscriber[] = [];
    const open = (reports: unknown[] = []) => {
      const subscriber = createRedisSubscriber(redis().url, undefined, (error) => reports.push(error));
      subscriber.connection.on('error', () => undefined);
      opened.push(subscriber);
      return subscriber;
    };
    const publish = async (channel: string, message: string) => {
      const { Redis: Client } = await import('ioredis');
      const client = new Client(redis().url);
      try {
        return await client.publish(channel, message);
      } finally {
        client.disconnect();
      }
    };

    beforeEach(() => {
      unhandled.length = 0;
      process.on('unhandledRejection', onUnhandled);
    });
    afterEach(async () => {
      await Promise.all(opened.map((subscriber) => subscriber.close()));
      opened = [];
      process.off('unhandledRejection', onUnhandled);
    });

    it('is subscribed again after Redis restarted, and says when it is', async () => {
      const subscriber = open();
      const heard: string[] = [];
      subscriber.connection.on('message', (_channel: string, message: string) => heard.push(message));
      await subscriber.subscribe('news');
      expect(subscriber.live).toBe(true);
      expect(await publish('news', 'before')).toBe(1);

      await redis().stop({ keepData: false });
      await eventually('the subscriber to see the close', 5_000, () =>
        Promise.resolve(!subscriber.live || undefined),
      );
      // Asked for while Redis is away: resolves once the reconnection confirmed it.
      const later = subscriber.subscribe('later');
      await redis().start();
      await later;
      await eventually('the channels to be back', 10_000, () =>
        Promise.resolve(subscriber.live || undefined),
      );
      expect(await publish('news', 'after')).toBe(1);
      expect(await publish('later', 'too')).toBe(1);
      await eventually('both messages', 5_000, () => Promise.resolve(heard.length === 3 || undefined));
      expect(heard).toEqual(['before', 'after', 'too']);
    }, 30_000);

    it('leaves no rejection unobserved when it is closed while a reconnection is being checked', async () => {
      const reports: unknown[] = [];
      const subscriber = open(reports);
      await subscriber.subscribe('news');
      await redis().stop({ keepData: false });
      await eventually('the subscriber to see the close', 5_000, () =>
        Promise.resolve(!subscriber.live || undefined),
      );
      const connection = subscriber.connection as unknown as WithReadyCheck;
      const readyCheck = connection._readyCheck.bind(connection);
      let closing: Promise<void> | undefined;
      // The INFO is on the wire when close() runs, so `ready` comes after the QUIT was sent: the SUBSCRIBE that
      // follows is answered by the connection closing (ioredis's own resubscription left that unhandled).
      connection._readyCheck = (callback) => {
        readyCheck(callback);
        closing = subscriber.close();
      };
      await redis().start();
      await eventually('the close', 10_000, () => Promise.resolve(closing ? true : undefined));
      await closing;
      await eventually('the connection to end', 5_000, () =>
        Promise.resolve(connection.status === 'end' || undefined),
      );
      await delay(100);
      expect(unhandled).toEqual([]);
      expect(reports).toEqual([]);
      await expect(subscriber.subscribe('news')).rejects.toThrow('closed');
    }, 30_000);
  });
}
