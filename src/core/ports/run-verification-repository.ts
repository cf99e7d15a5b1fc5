import type { Verdict, Verification } from '../verification/verification.js';

/** A child run's verdict as stored (docs/verified-delegation.md#where-verdicts-are-kept). */
export interface StoredVerification {
  /** The judged child run. */
  run_id: string;
  user_id: string;
  /** The run that received the child's result; null for a top-level `POST /api/delegate`. */
  parent_run_id: string | null;
  verdict: Verdict;
  verification: Verification;
  created_at: string;
}

/** Verdicts on child results: one per judged child run, the last one given standing. */
export interface RunVerificationRepository {
  /** Writes the verdict on `run_id`, replacing an earlier one (a revision's grading never judges the same run twice). */
  put(verification: Omit<StoredVerification, 'created_at'>): Promise<StoredVerification>;
  get(runId: string): Promise<StoredVerification | undefined>;
  getMany(runIds: readonly string[]): Promise<StoredVerification[]>;
}
