import type { RunEvent } from '../records/run-event.js';

/** Out-of-band instructions to whichever process executes a run. */
export type RunSignal =
  | { type: 'cancel'; run_id: string }
  | { type: 'steer'; run_id: string; message: string }
  | { type: 'resume'; run_id: string };

export interface Subscription {
  unsubscribe(): Promise<void>;
}

/**
 * Whether a bus that lives outside the process (Redis) delivers right now. While it does not, publishes and
 * signals are dropped and subscriptions hear nothing; readers read storage instead, and once more when it is
 * back, since whatever was published meanwhile is lost to them (docs/scale-out.md, "Outages").
 */
export interface BusHealth {
  readonly connected: boolean;
  /** Calls `listener` on every change, `false` when delivery stops, `true` when it is back; returns its stop. */
  onChange(listener: (connected: boolean) => void): () => void;
}

/**
 * Live fan-out of persisted run events and run signals. Publishing is best effort: the database is the
 * source of truth and every reader must be able to catch up from storage (`RunEventRepository.list`).
 * A subscription is active when `subscribe*` resolves, so "subscribe, then read the backlog" is gapless;
 * while the bus is down (`health`), subscribing still succeeds, and the subscription hears what is published
 * once it is back.
 */
export interface EventBus {
  publish(event: RunEvent): Promise<void>;
  /**
   * The events of one write, in order, as `publish` would one by one; a bus outside the process sends them in
   * one round trip. Optional: without it they are published one by one (`publishAllQuietly`).
   */
  publishMany?(events: readonly RunEvent[]): Promise<void>;
  subscribe(runId: string, listener: (event: RunEvent) => void): Promise<Subscription>;
  /**
   * The run's `end` events only, on the same terms as `subscribe`, except that an `end` published before the call
   * may be heard too (the Redis bus reads a run's end stream from its start: no round trip to find its tail). A
   * waiter for ends (an awaited run, a parent awaiting its children) then reads one entry per run instead of all
   * of them; it reads the run after subscribing anyway. Optional: without it a waiter subscribes to everything
   * and keeps the ends.
   */
  subscribeEnds?(runId: string, listener: (event: RunEvent) => void): Promise<Subscription>;
  signal(signal: RunSignal): Promise<void>;
  subscribeSignals(listener: (signal: RunSignal) => void): Promise<Subscription>;
  /** Absent on a bus inside the process, which never goes down. */
  readonly health?: BusHealth;
  close(): Promise<void>;
}
