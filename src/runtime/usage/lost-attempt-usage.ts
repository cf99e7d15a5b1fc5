import type { Storage } from '../../core/ports/storage.js';
import type { Run, TokenUsage } from '../../core/records/run.js';
import { emptyUsage, mergeStoredUsage, withAbortedCalls } from '../../core/runs/run-usage.js';
import { modelCallOpen } from '../../core/trace/run-timeline.js';
import { readRunTimeline } from './read-run-timeline.js';

/**
 * The usage of a run whose worker died without storing it (docs/usage.md): what its turns settled over
 * every attempt, the aborted calls stored before, and the model call its last attempt left open, when its
 * events show one (the trace records that call as interrupted by the same rule). Read when a lease is taken
 * over, a rare path: it folds the run's events.
 */
export async function lostAttemptUsage(storage: Storage, run: Run): Promise<TokenUsage> {
  const [settled, timeline] = await Promise.all([
    storage.messages.settledUsageOf([run]),
    readRunTimeline(storage, run.id),
  ]);
  const usage = mergeStoredUsage(run.usage, settled.get(run.id) ?? emptyUsage());
  return modelCallOpen(timeline) ? withAbortedCalls(usage) : usage;
}

/**
 * Brings a budgeted run's ledger to what its usage says after its worker died: the estimate charged for a
 * call that never answered goes back, and every call it counts stays charged (docs/usage.md). Once the
 * lease is taken over; the correction is an increment, so a next attempt spending meanwhile is not lost.
 */
export async function alignLedger(tx: Storage, runId: string, usage: TokenUsage): Promise<void> {
  const ledger = await tx.budgets.get(runId);
  if (!ledger) return;
  await tx.budgets.settle(runId, {
    tokens: usage.total_tokens - ledger.used.tokens,
    model_calls: usage.model_calls + usage.aborted_model_calls - ledger.used.model_calls,
  });
}
