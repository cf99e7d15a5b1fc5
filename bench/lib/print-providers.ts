/** The providers suite's tables. */
import { formatNumber, formatTable } from './table.js';
import type { Summary } from './stats.js';

export interface ProvidersResult {
  throughput: {
    runs: number;
    model_latency_ms: number;
    worker_slots: number;
    wall_ms: number;
    runs_per_second: number;
    queue_wait_ms: Summary;
    cpu_seconds: number;
    rss_mib: { baseline: number; peak: number };
    failed_runs: number;
    goal: { runs_per_second: number; met: boolean };
  };
  fairness: {
    rounds: number;
    children_per_round: number;
    provider_concurrency: number;
    user_b_runs: number;
    user_b_queue_wait_ms: Summary;
    user_a_child_queue_wait_ms: Summary;
  };
}

export function printProviders(result: ProvidersResult): void {
  const { throughput: t, fairness: f } = result;
  console.log(
    `\nProviders: ${t.runs} runs, one ${t.model_latency_ms} ms scripted model call each, ${t.worker_slots} worker slots`,
  );
  console.log(
    formatTable(
      ['metric', 'value'],
      [
        ['runs per second, first post → last end', t.runs_per_second],
        ['wall (ms)', t.wall_ms],
        [
          'queue wait p50 / p99 (ms)',
          `${formatNumber(t.queue_wait_ms.median)} / ${formatNumber(t.queue_wait_ms.p99)}`,
        ],
        ['CPU time (s)', t.cpu_seconds],
        [
          'RSS baseline → peak (MiB)',
          `${formatNumber(t.rss_mib.baseline)} → ${formatNumber(t.rss_mib.peak)}`,
        ],
        ['failed runs', t.failed_runs],
      ],
    ),
  );
  console.log(`Goal "at least ${t.goal.runs_per_second} runs/s": ${t.goal.met ? 'MET' : 'NOT MET'}.`);
  console.log(
    `\nFairness: user A fans out ${f.children_per_round} children (${f.rounds} rounds) against a provider limited to ${f.provider_concurrency} calls; user B's one-call runs meanwhile (${f.user_b_runs})`,
  );
  console.log(
    formatTable(
      ['queue wait beyond the 1 s call (ms)', 'p50', 'p99'],
      [
        ["user B's run", f.user_b_queue_wait_ms.median, f.user_b_queue_wait_ms.p99],
        ["user A's children", f.user_a_child_queue_wait_ms.median, f.user_a_child_queue_wait_ms.p99],
      ],
    ),
  );
}
