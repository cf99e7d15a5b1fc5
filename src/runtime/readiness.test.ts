import { describe, expect, it, vi } from 'vitest';
import { closeAfterEach } from '../../test/helpers/close-after-each.js';
import { createRuntimeHarness } from '../../test/helpers/create-runtime-harness.js';
import { expectTroupeError } from '../../test/helpers/workdir/expect-troupe-error.js';
import { createReadiness } from './readiness.js';

const closeLater = closeAfterEach();

async function harness() {
  const opened = await createRuntimeHarness({ startWorker: false });
  closeLater(opened);
  return opened;
}

describe('readiness', () => {
  it('is ready on the embedded default: SQLite answers, the bus and queue live in the process', async () => {
    const { storage, bus, queue } = await harness();
    expect(await createReadiness({ storage, bus, queue }).check()).toEqual({
      storage: 'ok',
      bus: 'ok',
      queue: 'ok',
    });
  });

  it('names the database when it does not answer in time, and concurrent probes share one statement', async () => {
    const { storage, bus, queue } = await harness();
    const readiness = createReadiness({ storage, bus, queue, storageTimeoutMs: 100 });
    const pings = vi.spyOn(storage, 'ping');
    // The SQLite connection belongs to this transaction until it ends, so the ping waits for it.
    let release: () => void = () => undefined;
    const held = storage.transaction(
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    try {
      const probes = await Promise.allSettled([readiness.check(), readiness.check(), readiness.check()]);
      expect(pings).toHaveBeenCalledTimes(1);
      for (const probe of probes) expect(probe.status).toBe('rejected');
      const error = await expectTroupeError(readiness.check(), 'storage_unavailable');
      expect(error.message).toBe('Not ready: the database is unavailable');
      expect(error.details).toEqual({
        checks: { storage: 'unavailable', bus: 'ok', queue: 'ok' },
        retry_after_seconds: 5,
      });
    } finally {
      release();
      await held;
    }
    expect((await readiness.check()).storage).toBe('ok');
  });

  it('names the database when it refuses the statement (a closed store)', async () => {
    const { storage, bus, queue } = await harness();
    await storage.close();
    await expectTroupeError(createReadiness({ storage, bus, queue }).check(), 'storage_unavailable');
  });
});
