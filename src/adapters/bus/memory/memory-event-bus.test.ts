import { describe, expect, it } from 'vitest';
import type { Subscription } from '../../../core/ports/event-bus.js';
import { storedRunEvent, type RunEvent } from '../../../core/records/run-event.js';
import { describeEventBusContract } from '../../../../test/contracts/event-bus.contract.js';
import { createMemoryEventBus } from './create-memory-event-bus.js';

describeEventBusContract('memory', () => {
  const bus = createMemoryEventBus();
  return Promise.resolve({ bus, close: () => bus.close() });
});

function runEvent(runId: string, seq: number): RunEvent {
  return storedRunEvent({
    run_id: runId,
    seq,
    type: 'step',
    payload: {},
    created_at: '2026-01-01T00:00:00.000Z',
  });
}

describe('createMemoryEventBus', () => {
  it('reports a throwing listener to onListenerError', async () => {
    const failure = new Error('listener failure (expected by the test)');
    const reported: unknown[] = [];
    const bus = createMemoryEventBus({ onListenerError: (error) => reported.push(error) });
    await bus.subscribe('run-1', () => {
      throw failure;
    });

    await bus.publish(runEvent('run-1', 1));

    expect(reported).toEqual([failure]);
  });

  it('survives an onListenerError that throws itself', async () => {
    const bus = createMemoryEventBus({
      onListenerError: () => {
        throw new Error('reporter failure (expected by the test)');
      },
    });
    const received: number[] = [];
    await bus.subscribe('run-1', () => {
      throw new Error('listener failure (expected by the test)');
    });
    await bus.subscribe('run-1', (event) => received.push(event.seq));

    await expect(bus.publish(runEvent('run-1', 1))).resolves.toBeUndefined();
    expect(received).toEqual([1]);
  });

  it('keeps publish order for every subscriber when a listener publishes to the same run', async () => {
    const bus = createMemoryEventBus();
    const first: number[] = [];
    const second: number[] = [];
    await bus.subscribe('run-1', (event) => {
      first.push(event.seq);
      if (event.seq === 1) void bus.publish(runEvent('run-1', 2));
    });
    await bus.subscribe('run-1', (event) => second.push(event.seq));

    await bus.publish(runEvent('run-1', 1));

    expect(first).toEqual([1, 2]);
    expect(second).toEqual([1, 2]);
  });

  it('skips a listener that another listener unsubscribed during the same delivery', async () => {
    const bus = createMemoryEventBus();
    const received: number[] = [];
    const later: Subscription[] = [];
    await bus.subscribe('run-1', () => void later[0]?.unsubscribe());
    later.push(await bus.subscribe('run-1', (event) => received.push(event.seq)));

    await bus.publish(runEvent('run-1', 1));

    expect(received).toEqual([]);
  });
});
