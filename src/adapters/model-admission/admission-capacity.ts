import type { AdmissionTicket } from '../../core/ports/model-admission.js';

/** Why a call cannot go now. */
export interface Refusal {
  taken: false;
  /** When a time-based limit (a pause, a per-minute bucket) may let it go; absent: at a release. */
  retryInMs?: number;
  /** The refusal holds for every call of the provider (its own limit or a pause), not just this model's. */
  providerWide: boolean;
  /** Set when the provider is paused: for how much longer. */
  pausedForMs?: number;
}

/**
 * The limits' bookkeeping behind `FairWaitingRoom`: in this process's memory or in Redis. `take` either
 * takes everything the ticket needs at once or nothing.
 */
export interface AdmissionCapacity {
  take(ticket: AdmissionTicket, permit: string): Promise<{ taken: true } | Refusal>;
  give(ticket: AdmissionTicket, permit: string, usedTokens: number | undefined): Promise<void>;
  pause(provider: string, untilMs: number): Promise<void>;
  /** Capacity may have freed elsewhere (another process released or a pause was set): pump that provider. */
  onChange(listener: (provider: string) => void): void;
  close(): Promise<void>;
}
