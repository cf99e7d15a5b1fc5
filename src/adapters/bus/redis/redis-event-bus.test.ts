import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventBus, RunSignal } from '../../../core/ports/event-bus.js';
import { storedRunEvent, type RunEvent } from '../../../core/records/run-event.js';
import type { Run } from '../../../core/records/run.js';
import { attachEndedRun, endedRunOf } from '../../../runtime/runs/end/ended-run-of.js';
import { describeEventBusContract } from '../../../../test/contracts/event-bus.contract.js';
import { compareStreamIds } from './compare-stream-ids.js';
import { createRedisEventBus } from './create-redis-event-bus.js';
import { serviceUrlOrSkip } from '../../../../test/helpers/services/service-url-or-skip.js';

/*
 * Runs against a real Redis when TROUPE_TEST_REDIS_URL is set (`.ci/run` starts one and sets it). Every bus
 * gets its own key prefix, so tests never see each other's streams; run ids are fresh UUIDs anyway.
 */
const SKIP_REASON =
  'Redis event bus: skipped because TROUPE_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6390; .ci/run sets it)';

function runEvent(runId: string, seq: number): RunEvent {
  return storedRunEvent({
    run_id: runId,
    seq,
    type: 'message_delta',
    payload: { text: `chunk ${seq}` },
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
  });
}

/** A completed run's `end`, as a run that finishes appends it. */
function endEvent(runId: string, seq: number): RunEvent {
  return storedRunEvent({
    run_id: runId,
    seq,
    type: 'end',
    payload: { status: 'completed' },
    created_at: new Date(Date.UTC(2026, 0, 1)).toISOString(),
  });
}

/** The run service's hooks for the row an end committed (`endedRunOf` / `attachEndedRun`). */
const ENDED_RUNS = {
  read: endedRunOf,
  attach: (event: RunEvent, run: Run) => attachEndedRun([event], run),
};

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

describe('compareStreamIds', () => {
  it('orders by milliseconds, then by sequence, numerically', () => {
    expect(compareStreamIds('9-0', '10-0')).toBeLessThan(0);
    expect(compareStreamIds('10-2', '10-10')).toBeLessThan(0);
    expect(compareStreamIds('10-1', '10-1')).toBe(0);
    expect(compareStreamIds('11-0', '10-99')).toBeGreaterThan(0);
  });
});

const serverUrl = serviceUrlOrSkip('TROUPE_TEST_REDIS_URL', SKIP_REASON);
if (serverUrl !== undefined) {
  const url = serverUrl;
  const freshPrefix = (): string => `troupe-test:${randomUUID().slice(0, 8)}:`;

  /** Deletes a test bus's streams, so repeated local runs leave nothing behind (they would expire anyway). */
  async function deleteKeys(keyPrefix: string): Promise<void> {
    const redis = new Redis(url);
    try {
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      await redis.quit();
    }
  }

  describeEventBusContract('redis', async () => {
    const keyPrefix = freshPrefix();
    const bus = await createRedisEventBus({ url, keyPrefix });
    return {
      bus,
      async close() {
        await bus.close();
        await deleteKeys(keyPrefix);
      },
    };
  });

  describe('Redis event bus specifics', () => {
    const opened: EventBus[] = [];
    const raw: Redis[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((bus) => bus.close()));
      await Promise.all(raw.splice(0).map((client) => client.quit()));
    });

    const prefixes: string[] = [];
    afterEach(async () => {
      for (const prefix of prefixes.splice(0)) await deleteKeys(prefix);
    });

    async function open(
      keyPrefix: string,
      extra: { maxLenPerRun?: number; ttlSeconds?: number; endedRuns?: typeof ENDED_RUNS } = {},
    ): Promise<EventBus> {
      const bus = await createRedisEventBus({ url, keyPrefix, ...extra });
      opened.push(bus);
      prefixes.push(keyPrefix);
      return bus;
    }

    function client(): Redis {
      const redis = new Redis(url);
      raw.push(redis);
      return redis;
    }

    it('carries events and signals between two buses, as between two processes', async () => {
      const prefix = freshPrefix();
      const worker = await open(prefix);
      const api = await open(prefix);
      const runId = randomUUID();
      const events: RunEvent[] = [];
      const signals: RunSignal[] = [];
      await api.subscribe(runId, (event) => events.push(event));
      await worker.subscribeSignals((signal) => signals.push(signal));

      for (let seq = 1; seq <= 5; seq += 1) await worker.publish(runEvent(runId, seq));
      await api.signal({ type: 'cancel', run_id: runId });

      await waitUntil(() => events.length === 5 && signals.length === 1, 'cross-bus delivery');
      expect(events).toEqual([1, 2, 3, 4, 5].map((seq) => runEvent(runId, seq)));
      expect(signals).toEqual([{ type: 'cancel', run_id: runId }]);
    });

    it('publishes the events of one write in one call, in order, each run to its own stream with its TTL', async () => {
      const prefix = freshPrefix();
      const worker = await open(prefix, { ttlSeconds: 60 });
      const api = await open(prefix);
      const [one, two] = [randomUUID(), randomUUID()];
      const heard: RunEvent[] = [];
      await api.subscribe(one, (event) => heard.push(event));
      await api.subscribe(two, (event) => heard.push(event));
      const batch = [runEvent(one, 1), runEvent(one, 2), runEvent(two, 1), runEvent(one, 3)];
      await worker.publishMany?.(batch);

      await waitUntil(() => heard.length === 4, 'the batch');
      expect(heard.filter((event) => event.run_id === one)).toEqual(
        [1, 2, 3].map((seq) => runEvent(one, seq)),
      );
      expect(heard.filter((event) => event.run_id === two)).toEqual([runEvent(two, 1)]);
      const redis = client();
      for (const runId of [one, two])
        expect(await redis.ttl(`${prefix}run:${runId}:events`)).toBeGreaterThan(0);
    });

    it('writes a publish made just before close, and publishes made one after another in order', async () => {
      const prefix = freshPrefix();
      const worker = await open(prefix);
      const runId = randomUUID();
      // Each publish waits for what its in-process waiters start before it writes: none of that may reorder or
      // drop them.
      const publishing = [1, 2, 3].map((seq) => worker.publish(runEvent(runId, seq)));
      const closing = worker.close();
      await Promise.all([...publishing, closing]);
      const entries = await client().xrange(`${prefix}run:${runId}:events`, '-', '+');
      expect(entries.map(([, fields]) => (JSON.parse(fields[1] ?? '{}') as RunEvent).seq)).toEqual([1, 2, 3]);
      await expect(worker.publish(runEvent(runId, 4))).resolves.toBeUndefined();
      expect(await client().xlen(`${prefix}run:${runId}:events`)).toBe(3);
    });

    it("delivers only a run's ends to subscribeEnds, from an end stream of their own with its TTL", async () => {
      const prefix = freshPrefix();
      const worker = await open(prefix, { ttlSeconds: 60 });
      const api = await open(prefix);
      const runId = randomUUID();
      const ends: RunEvent[] = [];
      const all: RunEvent[] = [];
      await api.subscribeEnds?.(runId, (event) => ends.push(event));
      await api.subscribe(runId, (event) => all.push(event));
      const end = endEvent(runId, 3);
      await worker.publishMany?.([runEvent(runId, 1), runEvent(runId, 2), end]);

      await waitUntil(() => all.length === 3 && ends.length === 1, 'the events and the end');
      expect(ends).toEqual([end]);
      const redis = client();
      expect(await redis.xlen(`${prefix}run:${runId}:end`)).toBe(1);
      expect(await redis.ttl(`${prefix}run:${runId}:end`)).toBeGreaterThan(0);
    });

    it('lets this process hear the ends it publishes before Redis answers, once', async () => {
      const prefix = freshPrefix();
      const worker = await open(prefix, { endedRuns: ENDED_RUNS });
      const other = await open(prefix);
      const [own, foreign] = [randomUUID(), randomUUID()];
      const ends: RunEvent[] = [];
      await worker.subscribeEnds?.(own, (event) => ends.push(event));
      await worker.subscribeEnds?.(foreign, (event) => ends.push(event));
      const end = endEvent(own, 2);
      const row = { id: own, status: 'completed', output: 'done' } as unknown as Run;
      attachEndedRun([end], row);
      const publishing = worker.publishMany?.([runEvent(own, 1), end]);
      // Not one XREAD later: a parent awaiting a child that ran here goes on at once (docs/scale-out.md), with
      // the very event and row the ending committed (what the process attached to the row goes with it, such as
      // a subagent's evidence events), as on the in-memory bus.
      expect(ends).toEqual([end]);
      expect(ends[0]).toBe(end);
      expect(endedRunOf(ends[0] as RunEvent)).toBe(row);
      await publishing;

      // Another process's end reaches the same loop, after ours: by then the loop has read ours and skipped it.
      const foreignEnd = endEvent(foreign, 1);
      await other.publish(foreignEnd);
      await waitUntil(() => ends.length === 2, "the other process's end");
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(ends).toEqual([end, foreignEnd]);
    });

    it('lets a waiter that subscribes after this process published an end hear it from the stream', async () => {
      const prefix = freshPrefix();
      const worker = await open(prefix);
      const runId = randomUUID();
      const first: RunEvent[] = [];
      const later: RunEvent[] = [];
      await worker.subscribeEnds?.(runId, (event) => first.push(event));
      const end = endEvent(runId, 1);
      const publishing = worker.publishMany?.([end]);
      await worker.subscribeEnds?.(runId, (event) => later.push(event));
      await publishing;
      await waitUntil(() => later.length === 1, 'the end, read back from its stream');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(first).toEqual([end]);
      expect(later).toEqual([end]);
    });

    it('lets subscribeEnds hear an end published before it, without looking up the stream tail first', async () => {
      const prefix = freshPrefix();
      const worker = await open(prefix);
      const api = await open(prefix);
      const runId = randomUUID();
      const end = endEvent(runId, 2);
      await worker.publishMany?.([runEvent(runId, 1), end]);
      // MONITOR sees this run's keys, whoever else shares the server.
      const monitor = await new Redis(url).monitor();
      const tailLookups: string[] = [];
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args[0]?.toLowerCase() === 'xrevrange' && args[1]?.includes(runId)) tailLookups.push(args[1]);
      });
      try {
        const ends: RunEvent[] = [];
        const events: RunEvent[] = [];
        await api.subscribeEnds?.(runId, (event) => ends.push(event));
        await api.subscribe(runId, (event) => events.push(event));
        await waitUntil(() => ends.length === 1, 'the end published before the subscription');
        expect(ends).toEqual([end]);
        // A plain subscription still starts at the tail: it looked the tail up and heard nothing of before.
        await waitUntil(() => tailLookups.length === 1, 'the events subscription looking its tail up');
        expect(tailLookups).toEqual([`${prefix}run:${runId}:events`]);
        expect(events).toEqual([]);
      } finally {
        monitor.disconnect();
      }
    });

    it('carries the row an end committed to the waiters of another process', async () => {
      const prefix = freshPrefix();
      const worker = await open(prefix, { endedRuns: ENDED_RUNS });
      const api = await open(prefix, { endedRuns: ENDED_RUNS });
      const runId = randomUUID();
      const ends: RunEvent[] = [];
      await api.subscribeEnds?.(runId, (event) => ends.push(event));
      const end = (seq: number) => endEvent(runId, seq);
      const row = {
        id: runId,
        status: 'completed',
        output: 'done',
        usage: { input_tokens: 3 },
      } as unknown as Run;
      const carried = end(1);
      attachEndedRun([carried], row);
      await worker.publishMany?.([carried]);
      // An end nobody attached a row to (or a process without `endedRuns`) arrives bare: its waiter reads the run.
      await worker.publish(end(2));

      // A row that does not decode leaves its end bare, not lost.
      await client().xadd(
        `${prefix}run:${runId}:end`,
        '*',
        'event',
        JSON.stringify(end(3)),
        'run',
        '{not json',
      );

      await waitUntil(() => ends.length === 3, 'the three ends');
      expect(ends.map((event) => event.seq)).toEqual([1, 2, 3]);
      expect(endedRunOf(ends[0] as RunEvent)).toEqual(row);
      expect(endedRunOf(ends[1] as RunEvent)).toBeUndefined();
      expect(endedRunOf(ends[2] as RunEvent)).toBeUndefined();
    });

    it('stores events in a bounded per-run stream with a TTL', async () => {
      const prefix = freshPrefix();
      const bus = await open(prefix, { maxLenPerRun: 100, ttlSeconds: 60 });
      const runId = randomUUID();
      for (let seq = 1; seq <= 400; seq += 1) await bus.publish(runEvent(runId, seq));

      const redis = client();
      const key = `${prefix}run:${runId}:events`;
      const length = await redis.xlen(key);
      // MAXLEN ~ trims whole macro nodes: bounded, though not exactly 100.
      expect(length).toBeLessThan(400);
      expect(length).toBeGreaterThanOrEqual(100);
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60);
      const [last] = await redis.xrevrange(key, '+', '-', 'COUNT', 1);
      expect(JSON.parse(last?.[1][1] ?? '{}')).toEqual(runEvent(runId, 400));
    });

    it('does not replay what was in the stream before subscribe', async () => {
      const prefix = freshPrefix();
      const bus = await open(prefix);
      const runId = randomUUID();
      await bus.publish(runEvent(runId, 1));
      await bus.publish(runEvent(runId, 2));
      const received: number[] = [];
      await bus.subscribe(runId, (event) => received.push(event.seq));
      await bus.publish(runEvent(runId, 3));

      await waitUntil(() => received.length >= 1, 'the live event');
      expect(received).toEqual([3]);
    });

    it('serves a second subscriber of a run already being read only from its own subscribe on', async () => {
      const prefix = freshPrefix();
      const bus = await open(prefix);
      const runId = randomUUID();
      const first: number[] = [];
      await bus.subscribe(runId, (event) => first.push(event.seq));
      await bus.publish(runEvent(runId, 1));
      await waitUntil(() => first.length === 1, 'the first event');

      const second: number[] = [];
      await bus.subscribe(runId, (event) => second.push(event.seq));
      await bus.publish(runEvent(runId, 2));
      await waitUntil(() => second.length === 1 && first.length === 2, 'the second event');
      expect(first).toEqual([1, 2]);
      expect(second).toEqual([2]);
    });

    it('picks up new runs at once while the reader is blocked on others', async () => {
      const prefix = freshPrefix();
      const bus = await open(prefix);
      await bus.subscribe(randomUUID(), () => undefined);
      // Let the loop block on the first stream, then add many runs, each expecting a prompt delivery.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = Date.now();
      for (let index = 0; index < 20; index += 1) {
        const runId = randomUUID();
        let got = false;
        await bus.subscribe(runId, () => (got = true));
        await bus.publish(runEvent(runId, 1));
        await waitUntil(() => got, `delivery to run ${index}`);
      }
      // Far below 20 × the 5 s BLOCK timeout: every new stream woke the reader.
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('ignores entries that are not run events and keeps delivering', async () => {
      const prefix = freshPrefix();
      const errors: unknown[] = [];
      const bus = await createRedisEventBus({
        url,
        keyPrefix: prefix,
        onError: (error) => errors.push(error),
      });
      opened.push(bus);
      prefixes.push(prefix);
      const runId = randomUUID();
      const received: number[] = [];
      await bus.subscribe(runId, (event) => received.push(event.seq));
      await client().xadd(`${prefix}run:${runId}:events`, '*', 'event', 'not json');
      await bus.publish(runEvent(runId, 1));

      await waitUntil(() => received.length === 1, 'the valid event');
      expect(errors).toHaveLength(1);
    });

    it('fails with config_invalid and no password when Redis is unreachable', async () => {
      const error: unknown = await createRedisEventBus({ url: 'redis://:s3cret@127.0.0.1:1' }).catch(
        (thrown: unknown) => thrown,
      );
      expect(error).toMatchObject({ code: 'config_invalid' });
      expect((error as Error).message).not.toContain('s3cret');
    });
  });
}
