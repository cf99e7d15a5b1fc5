import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TroupeError } from '../../src/core/errors.js';
import type { EventBus, RunSignal } from '../../src/core/ports/event-bus.js';
import { storedRunEvent, type RunEvent } from '../../src/core/records/run-event.js';

export interface OpenedEventBus {
  bus: EventBus;
  /** Releases whatever `open` created. Runs after every test, also after a test that closed the bus itself. */
  close(): Promise<void>;
}

/** Bounds a wait that should finish at once, so a lost message fails with what did arrive, not a bare timeout. */
const DELIVERY_WAIT_MS = 5_000;

interface Collector<TMessage> {
  readonly received: TMessage[];
  readonly listener: (message: TMessage) => void;
  /** Resolves with everything received once at least `count` messages arrived. */
  waitForCount(count: number): Promise<TMessage[]>;
}

function createCollector<TMessage>(): Collector<TMessage> {
  const received: TMessage[] = [];
  const waiters = new Set<{ count: number; resolve: () => void }>();
  const settle = (): void => {
    for (const waiter of waiters) {
      if (received.length >= waiter.count) {
        waiters.delete(waiter);
        waiter.resolve();
      }
    }
  };
  return {
    received,
    listener(message) {
      received.push(message);
      settle();
    },
    waitForCount(count) {
      return new Promise<TMessage[]>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(`expected ${count} messages, got ${received.length}: ${JSON.stringify(received)}`),
          );
        }, DELIVERY_WAIT_MS);
        const waiter = {
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve([...received]);
          },
        };
        waiters.add(waiter);
        settle();
      });
    },
  };
}

/** Lets anything already in flight land; only used to show that nothing more arrives. */
const settleIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A persisted-looking event of `runId` with `seq` (its text and time follow from it). */
export function runEvent(runId: string, seq: number): RunEvent {
  return storedRunEvent({
    run_id: runId,
    seq,
    type: 'message_delta',
    payload: { text: `chunk ${seq}` },
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, seq)).toISOString(),
  });
}

/**
 * The behaviour every `EventBus` adapter shares. Run ids are fresh UUIDs per test, so an adapter backed by a
 * shared server (Redis) needs no cleanup between tests. Listeners must be called with plain data equal to what
 * was published.
 */
export function describeEventBusContract(adapterName: string, open: () => Promise<OpenedEventBus>): void {
  describe(`EventBus contract: ${adapterName}`, () => {
    let opened: OpenedEventBus;
    let bus: EventBus;

    beforeEach(async () => {
      opened = await open();
      bus = opened.bus;
    });

    afterEach(async () => {
      await opened.close();
    });

    describe('run events', () => {
      it('delivers an event only to subscribers of its run', async () => {
        const [runA, runB] = [randomUUID(), randomUUID()];
        const a = createCollector<RunEvent>();
        const b = createCollector<RunEvent>();
        await bus.subscribe(runA, a.listener);
        await bus.subscribe(runB, b.listener);

        await bus.publish(runEvent(runA, 1));
        await bus.publish(runEvent(runB, 1));
        await bus.publish(runEvent(runA, 2));

        expect(await a.waitForCount(2)).toEqual([runEvent(runA, 1), runEvent(runA, 2)]);
        expect(await b.waitForCount(1)).toEqual([runEvent(runB, 1)]);
      });

      it('publishes to a run nobody listens to without failing', async () => {
        await expect(bus.publish(runEvent(randomUUID(), 1))).resolves.toBeUndefined();
      });

      it('delivers a message published right after subscribe resolves', async () => {
        const runId = randomUUID();
        const collector = createCollector<RunEvent>();
        await bus.subscribe(runId, collector.listener);
        await bus.publish(runEvent(runId, 1));

        expect(await collector.waitForCount(1)).toEqual([runEvent(runId, 1)]);
      });

      it('delivers events in publish order', async () => {
        const runId = randomUUID();
        const collector = createCollector<RunEvent>();
        await bus.subscribe(runId, collector.listener);
        const events = Array.from({ length: 25 }, (_, index) => runEvent(runId, index + 1));

        for (const event of events) await bus.publish(event);

        expect(await collector.waitForCount(events.length)).toEqual(events);
      });

      it('delivers every event to every subscriber of the run', async () => {
        const runId = randomUUID();
        const collectors = [
          createCollector<RunEvent>(),
          createCollector<RunEvent>(),
          createCollector<RunEvent>(),
        ];
        // The same function subscribed twice is two subscriptions, not one.
        const twice = createCollector<RunEvent>();
        for (const collector of [...collectors, twice, twice]) await bus.subscribe(runId, collector.listener);
        const events = [runEvent(runId, 1), runEvent(runId, 2), runEvent(runId, 3)];

        for (const event of events) await bus.publish(event);

        for (const collector of collectors) expect(await collector.waitForCount(3)).toEqual(events);
        expect(await twice.waitForCount(6)).toHaveLength(6);
      });

      it('stops delivery to a listener once its unsubscribe resolves, and keeps the others', async () => {
        const runId = randomUUID();
        const leaving = createCollector<RunEvent>();
        const staying = createCollector<RunEvent>();
        const subscription = await bus.subscribe(runId, leaving.listener);
        await bus.subscribe(runId, staying.listener);
        await bus.publish(runEvent(runId, 1));
        await leaving.waitForCount(1);

        await subscription.unsubscribe();
        await bus.publish(runEvent(runId, 2));

        // Per-run order means that once `staying` has event 2, `leaving` would have had it too.
        expect(await staying.waitForCount(2)).toEqual([runEvent(runId, 1), runEvent(runId, 2)]);
        expect(leaving.received).toEqual([runEvent(runId, 1)]);
      });

      it('treats a second unsubscribe as a no-op', async () => {
        const subscription = await bus.subscribe(randomUUID(), () => undefined);
        await subscription.unsubscribe();
        await expect(subscription.unsubscribe()).resolves.toBeUndefined();
      });

      it('keeps delivering to the others, and resolves the publish, when a listener throws', async () => {
        const runId = randomUUID();
        let throwingCalls = 0;
        await bus.subscribe(runId, () => {
          throwingCalls += 1;
          throw new Error('listener failure (expected by the test)');
        });
        const collector = createCollector<RunEvent>();
        await bus.subscribe(runId, collector.listener);

        await expect(bus.publish(runEvent(runId, 1))).resolves.toBeUndefined();
        await expect(bus.publish(runEvent(runId, 2))).resolves.toBeUndefined();

        expect(await collector.waitForCount(2)).toEqual([runEvent(runId, 1), runEvent(runId, 2)]);
        // A throwing listener stays subscribed: the bus reports, it does not evict.
        expect(throwingCalls).toBe(2);
      });
    });

    describe('signals', () => {
      it('delivers every signal to every signal subscriber, in order', async () => {
        const runId = randomUUID();
        const first = createCollector<RunSignal>();
        const second = createCollector<RunSignal>();
        await bus.subscribeSignals(first.listener);
        await bus.subscribeSignals(second.listener);
        const signals: RunSignal[] = [
          { type: 'steer', run_id: runId, message: 'focus on the tests' },
          { type: 'cancel', run_id: runId },
          { type: 'resume', run_id: randomUUID() },
        ];

        for (const signal of signals) await bus.signal(signal);

        expect(await first.waitForCount(3)).toEqual(signals);
        expect(await second.waitForCount(3)).toEqual(signals);
      });

      it('stops signal delivery once unsubscribe resolves', async () => {
        const leaving = createCollector<RunSignal>();
        const staying = createCollector<RunSignal>();
        const subscription = await bus.subscribeSignals(leaving.listener);
        await bus.subscribeSignals(staying.listener);
        const first: RunSignal = { type: 'cancel', run_id: randomUUID() };
        const second: RunSignal = { type: 'cancel', run_id: randomUUID() };
        await bus.signal(first);
        await leaving.waitForCount(1);

        await subscription.unsubscribe();
        await bus.signal(second);

        expect(await staying.waitForCount(2)).toEqual([first, second]);
        expect(leaving.received).toEqual([first]);
      });

      it('keeps delivering signals to the others when a listener throws', async () => {
        await bus.subscribeSignals(() => {
          throw new Error('signal listener failure (expected by the test)');
        });
        const collector = createCollector<RunSignal>();
        await bus.subscribeSignals(collector.listener);
        const signal: RunSignal = { type: 'resume', run_id: randomUUID() };

        await expect(bus.signal(signal)).resolves.toBeUndefined();

        expect(await collector.waitForCount(1)).toEqual([signal]);
      });
    });

    describe('close', () => {
      it('is idempotent', async () => {
        await bus.close();
        await expect(bus.close()).resolves.toBeUndefined();
      });

      it('drops every listener, while a late publish or signal still resolves', async () => {
        const runId = randomUUID();
        const events = createCollector<RunEvent>();
        const signals = createCollector<RunSignal>();
        await bus.subscribe(runId, events.listener);
        await bus.subscribeSignals(signals.listener);

        await bus.close();
        // Publishing is best effort: a worker finishing a step during shutdown must not crash on it.
        await expect(bus.publish(runEvent(runId, 1))).resolves.toBeUndefined();
        await expect(bus.signal({ type: 'cancel', run_id: runId })).resolves.toBeUndefined();
        await settleIo();

        expect(events.received).toEqual([]);
        expect(signals.received).toEqual([]);
      });

      it('refuses new subscriptions, which could never fire', async () => {
        await bus.close();

        await expect(bus.subscribe(randomUUID(), () => undefined)).rejects.toThrow(TroupeError);
        await expect(bus.subscribe(randomUUID(), () => undefined)).rejects.toMatchObject({
          code: 'internal',
        });
        await expect(bus.subscribeSignals(() => undefined)).rejects.toMatchObject({ code: 'internal' });
      });
    });
  });
}
