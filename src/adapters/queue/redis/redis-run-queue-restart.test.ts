import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import { eventually } from '../../../../test/helpers/eventually.js';
import { startThrowawayRedis } from '../../../../test/helpers/services/throwaway-redis.js';
import {
  serviceBinariesOrSkip,
  useThrowawayServer,
} from '../../../../test/helpers/services/use-throwaway-server.js';
import { createRedisRunQueue } from './create-redis-run-queue.js';

/* A redis-server of the test's own, stopped and started again under the queue (the shared one is never touched). */
const binaries = serviceBinariesOrSkip('Redis run queue restart');

if (binaries) {
  describe('Redis run queue across a Redis restart', () => {
    const redis = useThrowawayServer((dir, teardown) =>
      startThrowawayRedis(binaries.redisServer, dir, teardown),
    );
    const opened: RunQueue[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((queue) => queue.close()));
    });

    it('holds a run enqueued while Redis is away, queues it once Redis is back empty, and says it is away and back', async () => {
      const queue = await createRedisRunQueue({
        url: redis().url,
        queueName: `runs-${randomUUID().slice(0, 8)}`,
        concurrency: 4,
        onConnectionError: () => undefined,
      });
      opened.push(queue);
      const handled: string[] = [];
      queue.process((runId) => {
        handled.push(runId);
        return Promise.resolve();
      });
      let restored = 0;
      queue.onRestored?.(() => (restored += 1));
      const before = randomUUID();
      await queue.enqueue(before);
      await eventually('the run enqueued before the outage', 10_000, () =>
        Promise.resolve(handled.includes(before) ? true : undefined),
      );

      expect(queue.health?.connected).toBe(true);

      await redis().stop({ keepData: false });
      await eventually('the queue to say Redis is away', 10_000, () =>
        Promise.resolve(queue.health?.connected === false ? true : undefined),
      );
      const during = randomUUID();
      // Resolves without Redis (an API process answers its request); the run is held in this process.
      await queue.enqueue(during);
      expect(handled).not.toContain(during);

      await redis().start();
      await eventually('the held run to be handled once Redis is back', 20_000, () =>
        Promise.resolve(handled.includes(during) ? true : undefined),
      );
      expect(restored).toBeGreaterThan(0);
      expect(queue.health?.connected).toBe(true);
      expect(handled.filter((runId) => runId === during)).toHaveLength(1);
    }, 60_000);

    it('closes while Redis is away instead of waiting for it', async () => {
      const queue = await createRedisRunQueue({
        url: redis().url,
        queueName: `runs-${randomUUID().slice(0, 8)}`,
        concurrency: 4,
        onConnectionError: () => undefined,
      });
      queue.process(() => Promise.resolve());
      await redis().stop({ keepData: false });
      try {
        await queue.close();
      } finally {
        await redis().start();
      }
    }, 60_000);
  });
}
