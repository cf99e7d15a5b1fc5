import type { RunStatus, TokenUsage, WorkerLost } from '../api/types.ts';
import { tokensWithDetail, type TokenDetail } from './format.ts';

/** The fields every run-like record in the console has (a Run, a list row, a status panel card). */
export interface RunClock {
  status: RunStatus;
  started_at: string | null;
  finished_at: string | null;
  updated_at?: string | null;
  /** Set by the server while an expired lease holds the run. */
  worker_lost?: WorkerLost | null;
}

/**
 * A run whose worker stopped renewing its lease: no process works on it until a lease reconciler takes it
 * over. It is not running, so it says so, and its clock stops at the lease's last renewal (its last update).
 */
export function workerLostOf(run: RunClock): WorkerLost | null {
  if (run.status !== 'running' && run.status !== 'cancel_requested') return null;
  return run.worker_lost ?? null;
}

/** `worker lost — resumes by 12:03:04`; once that time has passed, that it waits for a worker. */
export function workerLostText(lost: WorkerLost, now: number = Date.now()): string {
  const by = Date.parse(lost.takeover_by);
  if (Number.isNaN(by) || now > by) return 'worker lost — waiting for a worker to take it over';
  const verb = lost.then === 'resume' ? 'resumes' : lost.then === 'fail' ? 'fails' : 'ends';
  return `worker lost — ${verb} by ${new Date(by).toLocaleTimeString('en-GB', { hour12: false })}`;
}

/**
 * A run back in `pending` after it had started: its worker stopped (a restart, a lost lease) or an approval
 * handed it back, and it waits for a worker to resume it. It is not running, so it says so.
 */
export function isWaitingToResume(run: RunClock): boolean {
  return run.status === 'pending' && run.started_at !== null;
}

/** Nobody works on the run now: it waits to be resumed, or its worker is lost. Its clock is stopped. */
export function isStalled(run: RunClock): boolean {
  return isWaitingToResume(run) || workerLostOf(run) !== null;
}

/**
 * Where the run's clock stops: its finish, or — while nobody works on it (handed back, or its worker lost) —
 * its last update (the hand-back, or the lease's last renewal), so the timer pauses instead of counting time
 * nobody worked. Null: still ticking.
 */
export function clockEnd(run: RunClock): string | null {
  if (run.finished_at !== null) return run.finished_at;
  if (isStalled(run)) return run.updated_at ?? run.started_at;
  return null;
}

/**
 * Model calls as the console counts them everywhere (docs/usage.md): answered (`model_calls`), aborted
 * (never answered: cancelled, failed, lost with a worker) and the one underway, if any.
 */
export interface CallCounts {
  settled: number;
  aborted: number;
  inProgress: number;
  /** Left open by a worker that is gone: nobody works on it; a takeover counts it aborted. */
  stopped?: number;
}

/**
 * `3 model calls (1 aborted, 1 in progress)`: every call (a lost worker's open one `stopped`), so the figure is the number of rows a table of the
 * run's calls lists, and the number a budget charges.
 */
export function callsText(counts: CallCounts): string {
  const stopped = counts.stopped ?? 0;
  const total = counts.settled + counts.aborted + counts.inProgress + stopped;
  const parts: string[] = [];
  if (counts.aborted > 0) parts.push(`${counts.aborted} aborted`);
  if (counts.inProgress > 0) parts.push(`${counts.inProgress} in progress`);
  if (stopped > 0) parts.push(`${stopped} stopped with its worker`);
  return `${total} model call${total === 1 ? '' : 's'}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

/**
 * `52 tokens · 2 model calls (1 aborted)`, or null without usage: the server's figure over every attempt
 * (docs/usage.md); an aborted call's tokens are unknown, so none are added for it.
 */
export function usageLine(
  usage:
    | (Pick<TokenUsage, 'total_tokens' | 'model_calls'> & { aborted_model_calls?: number } & TokenDetail)
    | null
    | undefined,
): string | null {
  if (!usage) return null;
  const calls = { settled: usage.model_calls, aborted: usage.aborted_model_calls ?? 0, inProgress: 0 };
  return `${tokensWithDetail(usage.total_tokens, usage)} · ${callsText(calls)}`;
}

/** `850 ms`, `2.3 s`, `3 min 4 s`, `2 h 5 min`. */
export function formatMs(ms: number): string {
  const value = Math.max(0, ms);
  if (value < 1000) return `${Math.round(value)} ms`;
  const seconds = value / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${Math.round(seconds % 60)} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
