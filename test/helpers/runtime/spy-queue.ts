import type { RuntimeHarness } from '../create-runtime-harness.js';

/** Records the run ids the harness's queue is given, in order (each still queued). */
export function spyQueue(h: RuntimeHarness): string[] {
  const queued: string[] = [];
  const enqueue = h.queue.enqueue.bind(h.queue);
  h.queue.enqueue = (runId) => {
    queued.push(runId);
    return enqueue(runId);
  };
  return queued;
}
