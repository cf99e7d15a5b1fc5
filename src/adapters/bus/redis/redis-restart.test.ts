import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventBus, RunSignal } from '../../../core/ports/event-bus.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import { eventually } from '../../../../test/helpers/eventually.js';
import { startThrowawayRedis } from '../../../../test/helpers/services/throwaway-redis.js';
import {
  serviceBinariesOrSkip,
  useThrowawayServer,
} from '../../../../test/helpers/services/use-throwaway-server.js';
import { runEvent } from '../../../../test/contracts/event-bus.contract.js';
import { createRedisEventBus } from './create-redis-event-bus.js';

/*
 * A redis-server of the test's own, stopped and started again under the bus (the shared one is never touched).
 * Skipped, with the reason, when redis-server is not installed.
 */
const binaries = serviceBinariesOrSkip('Redis event bus restart');

if (binaries) {
  describe('Redis event bus across a Redis restart', () => {
    const redis = useThrowawayServer((dir, teardown) =>
      startThrowawayRedis(binaries.redisServer, dir, teardown),
    );
    const opened: EventBus[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((bus) => bus.close()));
    });

    async function open(): Promise<EventBus> {
      const bus = await createRedisEventBus({ url: redis().url, onError: () => undefined });
      opened.push(bus);
      return bus;
    }

    it('closes while Redis is away instead of waiting for it', async () => {
      const bus = await createRedisEventBus({ url: redis().url, onError: () => undefined });
      await bus.subscribe(randomUUID(), () => undefined);
      await redis().stop({ keepData: false });
      try {
        await bus.close();
      } finally {
        await redis().start();
      }
    }, 60_000);

    it('reads a run subscribed after Redis came back at once, not after the blocked read times out', async () => {
      // A BLOCK far longer than the test may wait: only an unblocked read can deliver in time.
      const api = await createRedisEventBus({ url: redis().url, blockMs: 60_000, onError: () => undefined });
      opened.push(api);
      const worker = await open();
      await api.subscribe(randomUUID(), () => undefined);
      await redis().stop({ keepData: false });
      await eventually('the outage to be seen', 10_000, () =>
        Promise.resolve(api.health?.connected ? undefined : true),
      );
      await redis().start();
      await eventually('both buses to be back', 15_000, () =>
        Promise.resolve(api.health?.connected && worker.health?.connected ? true : undefined),
      );
      // The read blocked across the restart names only the streams of before; this run's must join it.
      const runId = randomUUID();
      const heard: RunEvent[] = [];
      await api.subscribe(runId, (event) => heard.push(event));
      await worker.publish(runEvent(runId, 1));
      await eventually('the event of the run subscribed after the restart', 20_000, () =>
        Promise.resolve(heard.length === 1 ? true : undefined),
      );
    }, 60_000);

    for (const keepData of [true, false]) {
      it(`reports the outage, drops publishes meanwhile, subscribes anyway, and delivers again once Redis is back (${keepData ? 'data kept' : 'data lost'})`, async () => {
        const worker = await open();
        const api = await open();
        const health = api.health;
        if (!health) throw new Error('the Redis bus reports its health');
        const changes: boolean[] = [];
        health.onChange((connected) => changes.push(connected));
        const runId = randomUUID();
        const before: RunEvent[] = [];
        await api.subscribe(runId, (event) => before.push(event));
        const signals: RunSignal[] = [];
        await worker.subscribeSignals((signal) => signals.push(signal));
        await worker.publish(runEvent(runId, 1));
        await eventually('the first event', 5_000, () =>
          Promise.resolve(before.length === 1 ? true : undefined),
        );

        await redis().stop({ keepData });
        await eventually('the outage to be seen', 10_000, () =>
          Promise.resolve(health.connected ? undefined : true),
        );
        // Neither waits for Redis: the event is in storage (readers read it there), the signal's run row too.
        await worker.publish(runEvent(runId, 2));
        await worker.signal({ type: 'cancel', run_id: runId });
        const during: RunEvent[] = [];
        await api.subscribe(runId, (event) => during.push(event));

        await redis().start();
        // Both processes' buses: a bus publishes nothing until its own connections are back (the events are in
        // storage), and on a loaded machine the worker's may come back after the API's.
        await eventually('both buses to be back', 15_000, () =>
          Promise.resolve(health.connected && worker.health?.connected ? true : undefined),
        );
        expect(changes).toEqual([false, true]);
        await worker.publish(runEvent(runId, 3));
        // Both subscriptions hear what is published after the outage; the one made during it may also hear the
        // stream from its start (its tail was unknown), which its reader de-duplicates by seq.
        await eventually('the event after the outage', 10_000, () =>
          Promise.resolve(
            before.some((event) => event.seq === 3) && during.some((event) => event.seq === 3)
              ? true
              : undefined,
          ),
        );
        expect(before.map((event) => event.seq)).toEqual([1, 3]);
        expect(during.every((event) => event.seq !== 2)).toBe(true);
        // The stream has a TTL again, also when the restart lost it and the XADD after it made a new key.
        const raw = new Redis(redis().url);
        try {
          expect(await raw.ttl(`troupe:run:${runId}:events`)).toBeGreaterThan(0);
        } finally {
          raw.disconnect();
        }
        // The signal subscription made before the outage is subscribed again.
        await api.signal({ type: 'resume', run_id: runId });
        await eventually('a signal after the outage', 10_000, () =>
          Promise.resolve(signals.some((signal) => signal.type === 'resume') ? true : undefined),
        );
      }, 60_000);
    }
  });
}
