import { describe, expect, it } from 'vitest';
import type { EventBus } from '../../core/ports/event-bus.js';
import type { Storage } from '../../core/ports/storage.js';
import { storedRunEvent, type RunEvent, type RunEventType } from '../../core/records/run-event.js';
import { streamRunEvents } from './stream-run-events.js';

const RUN = 'run-1';

/** A run's stored events and a bus that delivers synchronously, like the embedded one. */
function world() {
  const stored: RunEvent[] = [];
  const listeners = new Set<(event: RunEvent) => void>();
  const storage = {
    runs: { get: () => Promise.resolve({ id: RUN, status: 'running' }) },
    events: {
      list: (_runId: string, afterSeq: number, limit: number) =>
        Promise.resolve(stored.filter((event) => event.seq > afterSeq).slice(0, limit)),
    },
  } as unknown as Storage;
  const bus = {
    subscribe(_runId: string, listener: (event: RunEvent) => void) {
      listeners.add(listener);
      return Promise.resolve({ unsubscribe: () => Promise.resolve(void listeners.delete(listener)) });
    },
  } as unknown as EventBus;
  const commit = (type: RunEventType = 'step'): RunEvent => {
    const event = storedRunEvent({ run_id: RUN, seq: stored.length + 1, type, payload: {}, created_at: '' });
    stored.push(event);
    return event;
  };
  const publish = (event: RunEvent): void => {
    for (const listener of [...listeners]) listener(event);
  };
  return { storage, bus, commit, publish, listeners };
}

/** A sink that records seqs and lets the test wait until it has seen `count` of them. */
function recorder() {
  const seqs: number[] = [];
  let waiting: { count: number; resolve: () => void } | undefined;
  return {
    seqs,
    sink: {
      event(event: RunEvent) {
        seqs.push(event.seq);
        if (waiting && seqs.length >= waiting.count) waiting.resolve();
      },
    },
    until: (count: number) =>
      seqs.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => (waiting = { count, resolve })),
  };
}

/** Lets the stream finish its storage read and go live (pending promise continuations run first). */
const settled = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('streamRunEvents', () => {
  it('serves the backlog, then each live event from inside its publish', async () => {
    const w = world();
    w.commit('metadata');
    w.commit();
    const stream = await streamRunEvents(w.storage, w.bus, RUN, 0, new AbortController().signal);
    const r = recorder();
    const done = stream.forEach(r.sink);
    await r.until(2);
    await settled();

    w.publish(w.commit());
    expect(r.seqs).toEqual([1, 2, 3]);
    w.publish(w.commit('end'));
    await done;
    expect(r.seqs).toEqual([1, 2, 3, 4]);
    expect(w.listeners.size).toBe(0);
  });

  it('keeps what is published during the backlog read behind it, each event once', async () => {
    const w = world();
    w.commit('metadata');
    const stream = await streamRunEvents(w.storage, w.bus, RUN, 0, new AbortController().signal);
    // Committed and published after the subscription, before anything was read.
    w.publish(w.commit());
    const r = recorder();
    const done = stream.forEach(r.sink);
    await r.until(2);
    w.publish(w.commit('end'));
    await done;
    expect(r.seqs).toEqual([1, 2, 3]);
  });

  it('fills a hole the bus left from storage, and ignores the late publish', async () => {
    const w = world();
    const stream = await streamRunEvents(w.storage, w.bus, RUN, 0, new AbortController().signal);
    const r = recorder();
    const done = stream.forEach(r.sink);
    w.publish(w.commit('metadata'));
    await r.until(1);
    const lost = w.commit();
    w.publish(w.commit());
    await r.until(3);
    w.publish(lost);
    w.publish(w.commit('end'));
    await done;
    expect(r.seqs).toEqual([1, 2, 3, 4]);
  });

  it('resumes after the cursor it was given', async () => {
    const w = world();
    for (let seq = 1; seq <= 3; seq++) w.commit();
    const stream = await streamRunEvents(w.storage, w.bus, RUN, 2, new AbortController().signal);
    const r = recorder();
    const done = stream.forEach(r.sink);
    await r.until(1);
    w.publish(w.commit('end'));
    await done;
    expect(r.seqs).toEqual([3, 4]);
  });

  it('stops and unsubscribes when its signal aborts', async () => {
    const w = world();
    const controller = new AbortController();
    const stream = await streamRunEvents(w.storage, w.bus, RUN, 0, controller.signal);
    const r = recorder();
    const done = stream.forEach(r.sink);
    w.publish(w.commit('metadata'));
    await r.until(1);
    controller.abort();
    await done;
    w.publish(w.commit());
    expect(r.seqs).toEqual([1]);
    expect(w.listeners.size).toBe(0);
  });

  it('iterates in order, and leaving the loop early unsubscribes', async () => {
    const w = world();
    for (let seq = 1; seq <= 3; seq++) w.commit();
    const stream = await streamRunEvents(w.storage, w.bus, RUN, 0, new AbortController().signal);
    const seen: number[] = [];
    for await (const event of stream) {
      seen.push(event.seq);
      if (event.seq === 2) w.publish(w.commit());
      if (event.seq === 4) break;
    }
    expect(seen).toEqual([1, 2, 3, 4]);
    expect(w.listeners.size).toBe(0);
  });

  it('iteration ends after end', async () => {
    const w = world();
    w.commit('metadata');
    w.commit('end');
    const stream = await streamRunEvents(w.storage, w.bus, RUN, 0, new AbortController().signal);
    const seen: number[] = [];
    for await (const event of stream) seen.push(event.seq);
    expect(seen).toEqual([1, 2]);
    expect(w.listeners.size).toBe(0);
  });
});
