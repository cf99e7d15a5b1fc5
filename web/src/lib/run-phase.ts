import type { RunStatus, TokenUsage } from '../api/types.ts';

/** The fields every run-like record in the console has (a Run, a list row, a status panel card). */
export interface RunClock {
  status: RunStatus;
  started_at: string | null;
  finished_at: string | null;
  updated_at?: string | null;
}

/**
 * A run back in `pending` after it had started: its worker stopped (a restart, a lost lease) or an approval
 * handed it back, and it waits for a worker to resume it. It is not running, so it says so.
 */
export function isWaitingToResume(run: RunClock): boolean {
  return run.status === 'pending' && run.started_at !== null;
}

/**
 * Where the run's clock stops: its finish, or — while it waits to be resumed — the moment it was handed
 * back (its last update), so the timer pauses instead of counting time nobody worked. Null: still ticking.
 */
export function clockEnd(run: RunClock): string | null {
  if (run.finished_at !== null) return run.finished_at;
  if (isWaitingToResume(run)) return run.updated_at ?? run.started_at;
  return null;
}

/** `52 tokens · 1 model call`, or null without usage. */
export function usageLine(
  usage: Pick<TokenUsage, 'total_tokens' | 'model_calls'> | null | undefined,
): string | null {
  if (!usage) return null;
  return `${usage.total_tokens} tokens · ${usage.model_calls} model call${usage.model_calls === 1 ? '' : 's'}`;
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
