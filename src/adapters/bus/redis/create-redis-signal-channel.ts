import type { Redis } from 'ioredis';
import type { RedisSubscriber } from '../../redis/create-redis-subscriber.js';
import type { RunSignal, Subscription } from '../../../core/ports/event-bus.js';
import { rejectClosedBus } from './reject-closed-bus.js';

/*
 * Signals (`cancel`, `steer`, `resume`) are PUBLISHed on one channel: every process subscribes, and a
 * signal is only useful to whoever runs the run right now, so pub/sub's fire-and-forget delivery fits
 * (the durable path is the run row, which the executor re-reads on every lease renewal).
 */

export interface RedisSignalChannelOptions {
  /** Publishes; shared with the bus's other commands. */
  command: Redis;
  /** Dedicated to SUBSCRIBE (a subscribed connection can run nothing else). */
  subscriber: RedisSubscriber;
  channel: string;
  report: (error: unknown) => void;
}

export interface RedisSignalChannel {
  signal(signal: RunSignal): Promise<void>;
  subscribeSignals(listener: (signal: RunSignal) => void): Promise<Subscription>;
  /** Silences every listener; the connections belong to the caller. */
  close(): void;
}

interface SignalListener {
  listener: (signal: RunSignal) => void;
  active: boolean;
}

function isRunSignal(value: unknown): value is RunSignal {
  if (typeof value !== 'object' || value === null) return false;
  const { type, run_id: runId, message } = value as Record<string, unknown>;
  if (typeof runId !== 'string') return false;
  if (type === 'steer') return typeof message === 'string';
  return type === 'cancel' || type === 'resume';
}

/** The bus's signal half: one pub/sub channel fanned out to this process's listeners. */
export function createRedisSignalChannel(options: RedisSignalChannelOptions): RedisSignalChannel {
  const { command, subscriber, channel, report } = options;
  const listeners = new Set<SignalListener>();
  let subscribed: Promise<void> | undefined;
  let closed = false;

  subscriber.connection.on('message', (from: string, message: string) => {
    if (from !== channel) return;
    let signal: unknown;
    try {
      signal = JSON.parse(message);
    } catch (error) {
      report(new Error('Undecodable run signal', { cause: error }));
      return;
    }
    if (!isRunSignal(signal)) {
      report(new Error(`Not a run signal: ${message.slice(0, 200)}`));
      return;
    }
    for (const entry of [...listeners]) {
      if (!entry.active) continue;
      try {
        entry.listener(signal);
      } catch (error) {
        report(error);
      }
    }
  });

  return {
    async signal(signal) {
      if (closed) return;
      await command.publish(channel, JSON.stringify(signal));
    },

    async subscribeSignals(listener) {
      if (closed) return rejectClosedBus();
      // Resolves once Redis confirmed the SUBSCRIBE, so the subscription is live when this resolves.
      subscribed ??= subscriber.subscribe(channel);
      try {
        await subscribed;
      } catch (error) {
        subscribed = undefined;
        throw error;
      }
      if (closed) return rejectClosedBus();
      const entry: SignalListener = { listener, active: true };
      listeners.add(entry);
      return {
        unsubscribe() {
          entry.active = false;
          listeners.delete(entry);
          return Promise.resolve();
        },
      };
    },

    close() {
      closed = true;
      for (const entry of listeners) entry.active = false;
      listeners.clear();
    },
  };
}
