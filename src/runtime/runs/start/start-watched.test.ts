import { afterEach, describe, expect, it } from 'vitest';
import type { EventBus } from '../../../core/ports/event-bus.js';
import type { Run } from '../../../core/records/run.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import { sampleEvent } from '../../../../test/helpers/sample-run-events.js';
import { startWatched } from './start-watched.js';
import {
  createRuntimeHarness,
  type RuntimeHarness,
} from '../../../../test/helpers/create-runtime-harness.js';

const endOf = (runId: string): RunEvent =>
  sampleEvent('end', {}, { run_id: runId, seq: 1, created_at: new Date().toISOString() });

describe('startWatched', () => {
  let h: RuntimeHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  /** The harness's bus, counting the subscriptions open on it. */
  async function countedBus(): Promise<{ bus: EventBus; open: () => number }> {
    h = await createRuntimeHarness({ scenarios: {} });
    const inner = h.bus;
    let open = 0;
    const bus: EventBus = {
      ...inner,
      publish: (event) => inner.publish(event),
      async subscribe(runId, listener) {
        const subscription = await inner.subscribe(runId, listener);
        open += 1;
        return { unsubscribe: () => ((open -= 1), subscription.unsubscribe()) };
      },
    };
    return { bus, open: () => open };
  }

  it('watches the id it gives the start from before the run exists, until `use` is done', async () => {
    const { bus, open } = await countedBus();
    let given = '';
    const seen = await startWatched(
      bus,
      async (runId) => {
        given = runId;
        // The run ends before its start even returns: the watch still hears it.
        await bus.publish(endOf(runId));
        return { kind: 'started', run: { id: runId } as Run };
      },
      (outcome, since) => Promise.resolve({ outcome, since, ended: since?.watch.ended(given) }),
    );
    expect(seen.since?.created).toEqual([{ id: given }]);
    expect(seen.ended).toBe(true);
    expect(open()).toBe(0);
  });

  it('hands no watch for a replay, whose run is not the one it watched', async () => {
    const { bus } = await countedBus();
    const seen = await startWatched(
      bus,
      () => Promise.resolve({ kind: 'existing', run: { id: 'run-of-an-earlier-attempt' } as Run }),
      (_outcome, since) => Promise.resolve(since),
    );
    expect(seen).toBeUndefined();
  });

  it('closes the watch when `use` throws', async () => {
    const { bus, open } = await countedBus();
    await expect(
      startWatched(
        bus,
        () => Promise.resolve({ kind: 'refused' as const }),
        () => Promise.reject(new Error('refused')),
      ),
    ).rejects.toThrow('refused');
    expect(open()).toBe(0);
  });
});
