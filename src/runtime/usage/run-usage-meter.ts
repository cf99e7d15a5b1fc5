import type { TokenUsage } from '../../core/records/run.js';
import type { ThreadMessage } from '../../core/records/thread-message.js';
import {
  emptyUsage,
  mergeStoredUsage,
  settledUsage,
  withAbortedCalls,
  withSettledCall,
  type ModelCallUsage,
} from '../../core/runs/run-usage.js';

/** One model call on the meter: it ends exactly once, answered (`settle`) or not (`abort`). */
export interface MeteredCall {
  /** `model`: the model spec that answered (a fallback's when one did). */
  settle(usage: ModelCallUsage, model?: string): void;
  abort(): void;
}

/**
 * The one place a run's usage is counted (docs/usage.md): the run gate opens a call on it once the call is
 * admitted, and ends it when the provider answered or did not. A model gateway that retries a call does so
 * inside that one call: a retried attempt is not a second call.
 */
export interface RunUsageMeter {
  /** The run's usage over all its attempts so far: what earlier ones stored and this one's ended calls. */
  readonly usage: TokenUsage;
  /** Calls admitted and not yet ended. */
  readonly inFlight: number;
  /**
   * What earlier attempts settled, from the run's stored turns (each carries its call's usage): a worker that
   * died stored no usage on the run, its turns are all that is left of what it spent.
   */
  resumeFrom(thread: readonly ThreadMessage[], runId: string): void;
  begin(): MeteredCall;
}

export function createRunUsageMeter(stored: TokenUsage | null, runModel: string): RunUsageMeter {
  let usage = stored === null ? emptyUsage() : structuredClone(stored);
  let inFlight = 0;
  return {
    get usage() {
      return usage;
    },
    get inFlight() {
      return inFlight;
    },
    resumeFrom(thread, runId) {
      const calls: ModelCallUsage[] = [];
      for (const entry of thread) if (entry.run_id === runId && entry.usage !== null) calls.push(entry.usage);
      usage = mergeStoredUsage(stored, settledUsage(calls));
    },
    begin() {
      inFlight += 1;
      let ended = false;
      const end = (next: (current: TokenUsage) => TokenUsage) => {
        if (ended) return;
        ended = true;
        inFlight -= 1;
        usage = next(usage);
      };
      return {
        settle: (call, model) =>
          end((current) => withSettledCall(current, call, { answered: model ?? runModel, run: runModel })),
        abort: () => end((current) => withAbortedCalls(current)),
      };
    },
  };
}
