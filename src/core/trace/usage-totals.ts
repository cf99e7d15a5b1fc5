/** What the totals read of a run's timeline: its spans (structural, so this module stays a leaf). */
interface SpansWithUsage {
  spans: readonly {
    kind: string;
    status: string;
    usage: { input_tokens: number; output_tokens: number } | null;
  }[];
}

/** Token totals of a run or a subtree, as the trace shows them: a run's usage (docs/usage.md). */
export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  model_calls: number;
  aborted_model_calls: number;
}

export function zeroUsage(): UsageTotals {
  return { input_tokens: 0, output_tokens: 0, total_tokens: 0, model_calls: 0, aborted_model_calls: 0 };
}

/** A model span that ended without an answer: cancelled, interrupted (its worker stopped) or failed. */
const ABORTED = new Set(['cancelled', 'interrupted', 'error']);

/**
 * The calls a run's events report: each answered call with its tokens (they come with the event that
 * commits its turn), each call that ended without an answer as aborted. A call still underway is neither.
 */
export function timelineUsage(timeline: SpansWithUsage): UsageTotals {
  const total = zeroUsage();
  for (const span of timeline.spans) {
    if (span.kind !== 'model') continue;
    if (span.usage !== null) {
      total.input_tokens += span.usage.input_tokens;
      total.output_tokens += span.usage.output_tokens;
      total.model_calls += 1;
    } else if (ABORTED.has(span.status)) {
      total.aborted_model_calls += 1;
    }
  }
  total.total_tokens = total.input_tokens + total.output_tokens;
  return total;
}

export function addUsage(left: UsageTotals, right: UsageTotals): UsageTotals {
  return {
    input_tokens: left.input_tokens + right.input_tokens,
    output_tokens: left.output_tokens + right.output_tokens,
    total_tokens: left.total_tokens + right.total_tokens,
    model_calls: left.model_calls + right.model_calls,
    aborted_model_calls: left.aborted_model_calls + right.aborted_model_calls,
  };
}

/**
 * A run's own usage in a trace: the run's `usage` as the API read it, or what its events reported since, when
 * a live stream is ahead of that read (both count the same calls, docs/usage.md). Never less than either.
 */
export function ownUsage(stored: Partial<UsageTotals> | null, timeline: SpansWithUsage): UsageTotals {
  const live = timelineUsage(timeline);
  if (stored === null) return live;
  const known = { ...zeroUsage(), ...stored };
  const settled = live.model_calls > known.model_calls ? live : known;
  return { ...settled, aborted_model_calls: Math.max(live.aborted_model_calls, known.aborted_model_calls) };
}
