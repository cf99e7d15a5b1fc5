import type { Redis } from 'ioredis';
import type { BusHealth } from '../../../core/ports/event-bus.js';

export interface RedisHealth extends BusHealth {
  /** Stops listening to the connections. */
  close(): void;
}

/**
 * Connected while every one of `connections` is ready: ioredis reconnects each on its own after Redis went
 * away, and delivery needs them all (publishing, reading the streams, the signal channel).
 */
export function createRedisHealth(
  connections: readonly Redis[],
  report: (error: unknown) => void,
): RedisHealth {
  const listeners = new Set<(connected: boolean) => void>();
  const ready = (): boolean => connections.every((connection) => connection.status === 'ready');
  let connected = ready();
  const update = (): void => {
    const now = ready();
    if (now === connected) return;
    connected = now;
    for (const listener of [...listeners]) {
      try {
        listener(now);
      } catch (error) {
        report(error);
      }
    }
  };
  const events = ['ready', 'close', 'end', 'reconnecting'] as const;
  for (const connection of connections) for (const event of events) connection.on(event, update);
  return {
    get connected() {
      return connected;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      listeners.clear();
      for (const connection of connections) for (const event of events) connection.off(event, update);
    },
  };
}
