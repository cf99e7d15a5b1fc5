import { TroupeError } from '../../../core/errors.js';
import type { EventBus, RunSignal, Subscription } from '../../../core/ports/event-bus.js';
import type { RunEvent } from '../../../core/records/run-event.js';

export interface MemoryEventBusOptions {
  /**
   * Told about every listener that throws. The bus itself swallows the error, because one broken subscriber
   * (a closed SSE socket, a buggy waiter) must not stop delivery to the others or fail the publisher.
   */
  onListenerError?: (error: unknown) => void;
}

/** Entries instead of bare functions, so the same function subscribed twice is two independent subscriptions. */
interface Entry<TMessage> {
  listener: (message: TMessage) => void;
  active: boolean;
}

/**
 * The embedded-mode bus: fan-out inside one process. Delivery is synchronous, except that a publish made
 * from inside a listener is queued behind the delivery in progress, so every subscriber sees messages in
 * publish order even when listeners publish.
 */
export function createMemoryEventBus(options: MemoryEventBusOptions = {}): EventBus {
  const listenersByRun = new Map<string, Set<Entry<RunEvent>>>();
  const signalListeners = new Set<Entry<RunSignal>>();
  const deliveries: (() => void)[] = [];
  let delivering = false;
  let closed = false;

  function reportListenerError(error: unknown): void {
    try {
      options.onListenerError?.(error);
    } catch {
      // The reporter is the last resort; there is nowhere left to send its own failure.
    }
  }

  function schedule<TMessage>(entries: Iterable<Entry<TMessage>>, message: TMessage): void {
    // Snapshot now: whoever was subscribed at publish time gets the message, later subscribers do not.
    const targets = [...entries];
    if (targets.length === 0) return;
    deliveries.push(() => {
      for (const entry of targets) {
        if (!entry.active) continue;
        try {
          entry.listener(message);
        } catch (error) {
          reportListenerError(error);
        }
      }
    });
    if (delivering) return;
    delivering = true;
    try {
      for (let delivery = deliveries.shift(); delivery; delivery = deliveries.shift()) delivery();
    } finally {
      delivering = false;
    }
  }

  function rejectClosed(): Promise<never> {
    // A subscription on a closed bus would never fire: fail loudly instead of letting a waiter hang.
    return Promise.reject(new TroupeError('internal', 'The event bus is closed'));
  }

  function track<TMessage>(
    set: Set<Entry<TMessage>>,
    entry: Entry<TMessage>,
    onEmpty?: () => void,
  ): Subscription {
    set.add(entry);
    return {
      unsubscribe() {
        entry.active = false;
        set.delete(entry);
        if (set.size === 0) onEmpty?.();
        return Promise.resolve();
      },
    };
  }

  return {
    publish(event) {
      if (!closed) schedule(listenersByRun.get(event.run_id) ?? [], event);
      return Promise.resolve();
    },

    subscribe(runId, listener) {
      if (closed) return rejectClosed();
      let listeners = listenersByRun.get(runId);
      if (!listeners) {
        listeners = new Set();
        listenersByRun.set(runId, listeners);
      }
      const set = listeners;
      // Drop the run's set with its last listener, so finished runs do not accumulate empty sets.
      const subscription = track(set, { listener, active: true }, () => {
        if (listenersByRun.get(runId) === set) listenersByRun.delete(runId);
      });
      return Promise.resolve(subscription);
    },

    signal(signal) {
      if (!closed) schedule(signalListeners, signal);
      return Promise.resolve();
    },

    subscribeSignals(listener) {
      if (closed) return rejectClosed();
      return Promise.resolve(track(signalListeners, { listener, active: true }));
    },

    close() {
      closed = true;
      for (const listeners of listenersByRun.values()) {
        for (const entry of listeners) entry.active = false;
      }
      for (const entry of signalListeners) entry.active = false;
      listenersByRun.clear();
      signalListeners.clear();
      deliveries.length = 0;
      return Promise.resolve();
    },
  };
}
