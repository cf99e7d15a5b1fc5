/** What the totals read of a run's timeline: its spans (structural, so this module stays a leaf). */
interface SpansWithUsage {
  spans: readonly { kind: string; usage: { input_tokens: number; output_tokens: number } | null }[];
}

/** Token totals of a run or a subtree, as the trace shows them. */
export interface UsageTotals {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  model_calls: number;
}

export function zeroUsage(): UsageTotals {
  return { input_tokens: 0, output_tokens: 0, total_tokens: 0, model_calls: 0 };
}

/** Tokens of the model calls the events reported (a run's own usage while it has not stored one yet). */
export function timelineUsage(timeline: SpansWithUsage): UsageTotals {
  const total = zeroUsage();
  for (const span of timeline.spans) {
    if (span.kind !== 'model' || span.usage === null) continue;
    total.input_tokens += span.usage.input_tokens;
    total.output_tokens += span.usage.output_tokens;
    total.model_calls += 1;
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
  };
}

/** The larger of the stored usage (written when a run parks or ends) and what its events reported since. */
export function ownUsage(stored: UsageTotals | null, timeline: SpansWithUsage): UsageTotals {
  const live = timelineUsage(timeline);
  if (stored === null) return live;
  return live.total_tokens > stored.total_tokens ? live : { ...stored };
}
