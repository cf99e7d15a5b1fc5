/** Order statistics of one sample set, in the unit of the samples (milliseconds unless said otherwise). */
export interface Summary {
  n: number;
  median: number;
  p90: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of sorted samples (`q` in 0..1). */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    n: sorted.length,
    median: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    mean: sorted.length > 0 ? sum / sorted.length : Number.NaN,
    min: sorted[0] ?? Number.NaN,
    max: sorted.at(-1) ?? Number.NaN,
  };
}

/** Rounds for JSON output: keeps 3 significant decimals below 10, 1 decimal above. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  return Math.abs(value) < 10 ? Math.round(value * 1000) / 1000 : Math.round(value * 10) / 10;
}

export function roundSummary(summary: Summary): Summary {
  return {
    n: summary.n,
    median: round(summary.median),
    p90: round(summary.p90),
    p99: round(summary.p99),
    mean: round(summary.mean),
    min: round(summary.min),
    max: round(summary.max),
  };
}

/** Wall-clock milliseconds since the epoch with sub-millisecond precision, comparable across processes. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}
