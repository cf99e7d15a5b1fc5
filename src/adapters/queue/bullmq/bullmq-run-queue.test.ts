import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import { describeRunQueueContract } from '../../../../test/contracts/run-queue.contract.js';
import { createBullmqRunQueue, jobIdFor } from './create-bullmq-run-queue.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';

/*
 * Runs against a real Redis when TROUPE_TEST_REDIS_URL is set (`.ci/run` starts one and sets it). Every queue
 * gets a fresh name, so tests share the server but never each other's jobs.
 */
const SKIP_REASON =
  'BullMQ run queue: skipped because TROUPE_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6390; .ci/run sets it)';
const PREFIX = 'troupe-test';

function waitUntil(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      if (check()) resolve();
      else if (Date.now() - started > timeoutMs) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(poll, 5);
    };
    poll();
  });
}

const freshQueueName = (): string => `runs-${randomUUID().slice(0, 8)}`;

/** Deletes every key of a test queue, so repeated local runs leave nothing behind. */
async function obliterate(url: string, queueName: string): Promise<void> {
  const connection = new Redis(url, { maxRetriesPerRequest: null });
  const queue = new Queue(queueName, { connection, prefix: PREFIX });
  try {
    await queue.obliterate({ force: true });
  } finally {
    await queue.close();
    await connection.quit();
  }
}

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_REDIS_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  describeRunQueueContract('bullmq', async ({ concurrency, onError }) => {
    const queueName = freshQueueName();
    const queue = await createBullmqRunQueue({ url, queueName, prefix: PREFIX, concurrency, onError });
    return {
      queue,
      async close() {
        await queue.close();
        await obliterate(url, queueName);
      },
    };
  });

  describe('BullMQ run queue specifics', () => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function open(queueName: string, concurrency = 1): Promise<RunQueue> {
      const queue = await createBullmqRunQueue({ url, queueName, prefix: PREFIX, concurrency });
      cleanups.push(() => queue.close());
      return queue;
    }

    /** What a consumer of the queue is handed, once the first run came and nothing more in 200 ms after. */
    async function handledOnce(queueName: string): Promise<string[]> {
      const handled: string[] = [];
      const consumer = await open(queueName);
      consumer.process((id) => {
        handled.push(id);
        return Promise.resolve();
      });
      await waitUntil(() => handled.length === 1, 'the run');
      await new Promise((resolve) => setTimeout(resolve, 200));
      return handled;
    }

    it('collapses repeated enqueues of a run while its job waits', async () => {
      const queueName = freshQueueName();
      cleanups.push(() => obliterate(url, queueName));
      const producer = await open(queueName);
      const runId = randomUUID();
      for (let index = 0; index < 5; index += 1) await producer.enqueue(runId);
      expect(await handledOnce(queueName)).toEqual([runId]);
    });

    it('queues a run just created without looking for its job, and still adds nothing for a repeat', async () => {
      const queueName = freshQueueName();
      cleanups.push(() => obliterate(url, queueName));
      const producer = await open(queueName);
      const runId = randomUUID();
      // The look-up (Queue.getJob) is an HGETALL of the job's hash; MONITOR sees this queue's, whoever else
      // shares the server.
      const monitor = await new Redis(url).monitor();
      cleanups.push(() => Promise.resolve(monitor.disconnect()));
      const lookups: string[] = [];
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args[0]?.toLowerCase() === 'hgetall' && args[1]?.includes(queueName)) lookups.push(args[1]);
      });
      await producer.enqueue(runId, { created: true });
      // A run enqueued again looks, finds its job waiting and adds nothing.
      await producer.enqueue(runId);
      await waitUntil(() => lookups.length > 0, 'the look-up of the second enqueue');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(lookups).toHaveLength(1);
      expect(await handledOnce(queueName)).toEqual([runId]);
    });

    it('processes a run enqueued again after its job finished (an expired lease re-enqueues it)', async () => {
      const queueName = freshQueueName();
      cleanups.push(() => obliterate(url, queueName));
      const queue = await open(queueName);
      const handled: string[] = [];
      queue.process((id) => {
        handled.push(id);
        return Promise.resolve();
      });
      const runId = randomUUID();
      await queue.enqueue(runId);
      await waitUntil(() => handled.length === 1, 'the first delivery');
      // The finished job is removed; give BullMQ the moment it needs to do so.
      await new Promise((resolve) => setTimeout(resolve, 50));
      await queue.enqueue(runId);
      await waitUntil(() => handled.length === 2, 'the second delivery');
      expect(handled).toEqual([runId, runId]);
    });

    it('adds a second job when the run is enqueued while its job is still active', async () => {
      const queueName = freshQueueName();
      cleanups.push(() => obliterate(url, queueName));
      const queue = await open(queueName, 2);
      const handled: string[] = [];
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      cleanups.push(() => Promise.resolve(release()));
      const runId = randomUUID();
      queue.process(async (id) => {
        handled.push(id);
        if (handled.length === 1) await gate;
      });
      await queue.enqueue(runId);
      await waitUntil(() => handled.length === 1, 'the first delivery');
      // Like a worker killed mid-run: its job stays active, yet the reconciler's re-enqueue must be served.
      await queue.enqueue(runId);
      await waitUntil(() => handled.length === 2, 'the delivery of the re-enqueued run');
      release();
      expect(handled).toEqual([runId, runId]);
    });

    it('hands work from a producer-only process to a consumer process', async () => {
      const queueName = freshQueueName();
      cleanups.push(() => obliterate(url, queueName));
      const api = await open(queueName);
      const worker = await open(queueName, 3);
      const handled: string[] = [];
      worker.process((id) => {
        handled.push(id);
        return Promise.resolve();
      });
      const ids = Array.from({ length: 10 }, () => randomUUID());
      for (const id of ids) await api.enqueue(id);
      await waitUntil(() => handled.length === ids.length, 'every run');
      expect(handled.sort()).toEqual([...ids].sort());
    });

    it('uses job ids BullMQ accepts', () => {
      expect(jobIdFor('run_abc')).toBe('run-run_abc');
      expect(jobIdFor('run_abc')).not.toContain(':');
    });

    it('fails with config_invalid and no password when Redis is unreachable', async () => {
      const error: unknown = await createBullmqRunQueue({
        url: 'redis://:s3cret@127.0.0.1:1',
        concurrency: 1,
      }).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: 'config_invalid' });
      expect((error as Error).message).not.toContain('s3cret');
    });
  });
}
