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
 * Live fan-out of persisted run events and run signals. Publishing is best effort: the database is the
 * source of truth and every reader must be able to catch up from storage (`RunEventRepository.list`).
 * A subscription is active when `subscribe*` resolves, so "subscribe, then read the backlog" is gapless.
 */
export interface EventBus {
  publish(event: RunEvent): Promise<void>;
  subscribe(runId: string, listener: (event: RunEvent) => void): Promise<Subscription>;
  signal(signal: RunSignal): Promise<void>;
  subscribeSignals(listener: (signal: RunSignal) => void): Promise<Subscription>;
  close(): Promise<void>;
}
