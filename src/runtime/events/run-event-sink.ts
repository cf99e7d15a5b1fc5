import type { RunEvent } from '../../core/records/run-event.js';

/** Where a run's events go in push mode. */
export interface RunEventSink {
  /**
   * Each event exactly once, in seq order. A live event comes synchronously from inside the bus publish, so
   * nothing (no promise continuation queued behind every other run's work) stands between the publish and
   * the consumer.
   */
  event(event: RunEvent): void;
  /**
   * Awaited between backlog pages, so a long backlog is read no faster than the consumer takes it. Live
   * events are pushed regardless; bounding what a slow consumer holds is the consumer's business.
   */
  ready?(): Promise<void>;
}
