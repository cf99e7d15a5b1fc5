import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import { describeRunQueueContract } from '../../../../test/contracts/run-queue.contract.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';
import { eventually } from '../../../../test/helpers/eventually.js';
import { createRedisRunQueue } from './create-redis-run-queue.js';

/*
 * Runs against a real Redis when TROUPE_TEST_REDIS_URL is set (`.ci/run` starts one and sets it). Every queue
 * gets a fresh name, so tests share the server but never each other's runs.
 */
const SKIP_REASON =
  'Redis run queue: skipped because TROUPE_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6390; .ci/run sets it)';
const PREFIX = 'troupe-test:';

const freshQueueName = (): string => `runs-${randomUUID().slice(0, 8)}`;

/** Deletes a test queue's keys, so repeated local runs leave nothing behind. */
async function removeKeys(url: string, queueName: string): Promise<void> {
  const connection = new Redis(url);
  try {
    await connection.del(`${PREFIX}${queueName}:queue`, `${PREFIX}${queueName}:seq`);
  } finally {
    await connection.quit();
  }
}

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_REDIS_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  describeRunQueueContract('redis', async ({ concurrency, onError }) => {
    const queueName = freshQueueName();
    const queue = await createRedisRunQueue({ url, queueName, keyPrefix: PREFIX, concurrency, onError });
    return {
      queue,
      async close() {
        await queue.close();
        await removeKeys(url, queueName);
      },
    };
  });

  describe('Redis run queue specifics', () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function open(queueName: string, concurrency = 1, blockSeconds?: number): Promise<RunQueue> {
      const queue = await createRedisRunQueue({
        url,
        queueName,
        keyPrefix: PREFIX,
        concurrency,
        ...(blockSeconds ? { blockSeconds } : {}),
      });
      cleanups.push(() => queue.close());
      return queue;
    }

    function fresh(): string {
      const queueName = freshQueueName();
      cleanups.push(() => removeKeys(url, queueName));
      return queueName;
    }

    function recording(queue: RunQueue): string[] {
      const handled: string[] = [];
      queue.process((id) => {
        handled.push(id);
        return Promise.resolve();
      });
      return handled;
    }

    const settled = () => new Promise((resolve) => setTimeout(resolve, 200));

    it('collapses repeated enqueues of a run while it waits, keeping its place', async () => {
      const queueName = fresh();
      const producer = await open(queueName);
      const [first, second] = [randomUUID(), randomUUID()];
      await producer.enqueue(first);
      await producer.enqueue(second);
      for (let index = 0; index < 5; index += 1) await producer.enqueue(first);
      const handled = recording(await open(queueName));
      await eventually('both runs', 5_000, () => Promise.resolve(handled.length >= 2 || undefined));
      await settled();
      expect(handled).toEqual([first, second]);
    });

    it('processes a run enqueued again after it was handed over (an expired lease re-enqueues it)', async () => {
      const queue = await open(fresh());
      const handled = recording(queue);
      const runId = randomUUID();
      await queue.enqueue(runId);
      await eventually('the first delivery', 5_000, () => Promise.resolve(handled.length === 1 || undefined));
      await queue.enqueue(runId);
      await eventually('the second delivery', 5_000, () =>
        Promise.resolve(handled.length === 2 || undefined),
      );
      expect(handled).toEqual([runId, runId]);
    });

    it('keeps FIFO order across producer processes and hands each run to one of several consumers', async () => {
      const queueName = fresh();
      const [api1, api2] = [await open(queueName), await open(queueName)];
      const ids: string[] = Array.from({ length: 12 }, () => randomUUID());
      // Alternating producers: the order is Redis's, not one process's.
      for (const [index, id] of ids.entries()) await (index % 2 === 0 ? api1 : api2).enqueue(id);
      const order: string[] = [];
      const byConsumer: string[][] = [];
      for (let index = 0; index < 2; index += 1) {
        const consumer = await open(queueName, 3);
        const handled: string[] = [];
        byConsumer.push(handled);
        consumer.process((id) => {
          order.push(id);
          handled.push(id);
          return Promise.resolve();
        });
      }
      await eventually('every run', 5_000, () => Promise.resolve(order.length >= ids.length || undefined));
      await settled();
      expect([...order].sort()).toEqual([...ids].sort());
      // Each consumer pops one id at a time, so what it got is in queue order; which consumer's handler runs
      // first is the event loop's, not the queue's.
      for (const handled of byConsumer) {
        const positions = handled.map((id) => ids.indexOf(id));
        expect(positions).toEqual([...positions].sort((a, b) => a - b));
      }
    });

    it('closes a consumer blocked on an empty queue at once and loses nothing enqueued after', async () => {
      const queueName = fresh();
      // A long block: a close that waited for the pop to time out would take 30 s.
      const consumer = await open(queueName, 2, 30);
      const handled = recording(consumer);
      // Let the consumer block.
      await settled();
      const started = Date.now();
      await consumer.close();
      expect(Date.now() - started).toBeLessThan(10_000);
      const producer = await open(queueName);
      const runId = randomUUID();
      await producer.enqueue(runId);
      const next = recording(await open(queueName));
      await eventually('the run, by the next consumer', 5_000, () =>
        Promise.resolve(next.includes(runId) || undefined),
      );
      expect(handled).toEqual([]);
    });

    it('fails with config_invalid and no password when Redis is unreachable', async () => {
      const error: unknown = await createRedisRunQueue({
        url: 'redis://:s3cret@127.0.0.1:1',
        concurrency: 1,
      }).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: 'config_invalid' });
      expect((error as Error).message).not.toContain('s3cret');
    });

    it('refuses a concurrency that is not a positive integer', async () => {
      await expect(createRedisRunQueue({ url, concurrency: 0 })).rejects.toMatchObject({
        code: 'config_invalid',
      });
    });
  });
}
