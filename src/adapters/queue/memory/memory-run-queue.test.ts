import { describe, expect, it } from 'vitest';
import { describeRunQueueContract } from '../../../../test/contracts/run-queue.contract.js';
import { createMemoryRunQueue } from './create-memory-run-queue.js';

describeRunQueueContract('memory', (options) => {
  const queue = createMemoryRunQueue(options);
  return Promise.resolve({ queue, close: () => queue.close() });
});

const settleIo = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('createMemoryRunQueue', () => {
  it.each([0, -1, 1.5, Number.NaN])('refuses concurrency %s', (concurrency) => {
    expect(() => createMemoryRunQueue({ concurrency })).toThrowError(
      expect.objectContaining({ code: 'config_invalid' }),
    );
  });

  it('works without onError', async () => {
    const queue = createMemoryRunQueue({ concurrency: 1 });
    const handled: string[] = [];
    queue.process((runId) => {
      handled.push(runId);
      return runId === 'run-1'
        ? Promise.reject(new Error('handler failure (expected by the test)'))
        : Promise.resolve();
    });

    await queue.enqueue('run-1');
    await queue.enqueue('run-2');
    await settleIo();

    expect(handled).toEqual(['run-1', 'run-2']);
    await queue.close();
  });

  it('survives an onError that throws itself', async () => {
    const queue = createMemoryRunQueue({
      concurrency: 1,
      onError: () => {
        throw new Error('reporter failure (expected by the test)');
      },
    });
    const handled: string[] = [];
    queue.process((runId) => {
      handled.push(runId);
      return runId === 'run-1'
        ? Promise.reject(new Error('handler failure (expected by the test)'))
        : Promise.resolve();
    });

    await queue.enqueue('run-1');
    await queue.enqueue('run-2');
    await settleIo();

    expect(handled).toEqual(['run-1', 'run-2']);
    await queue.close();
  });

  it('refuses a second handler', () => {
    const queue = createMemoryRunQueue({ concurrency: 1 });
    queue.process(() => Promise.resolve());

    expect(() => queue.process(() => Promise.resolve())).toThrowError(
      expect.objectContaining({ code: 'internal' }),
    );
  });

  it('lets a handler enqueue more work without running it inline', async () => {
    const queue = createMemoryRunQueue({ concurrency: 1 });
    const events: string[] = [];
    queue.process(async (runId) => {
      events.push(`start ${runId}`);
      if (runId === 'parent') await queue.enqueue('child');
      events.push(`end ${runId}`);
    });

    await queue.enqueue('parent');
    await settleIo();
    await queue.close();

    expect(events).toEqual(['start parent', 'end parent', 'start child', 'end child']);
  });
});
