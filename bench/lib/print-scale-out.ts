import type { Summary } from './stats.js';
import type { RoundTrips } from './round-trip-probe.js';
import { formatNumber, formatTable } from './table.js';

/** The unrecorded batches before a measured one, and the CPU per dispatch each of them took. */
interface Warmup {
  dispatches: number;
  cpu_ms_per_dispatch: number[];
}

/** The part of bench/suites/scale-out.ts's result the table reads. */
export interface ScaleOutResult {
  postgres: { version: string; settings: string[] };
  redis: { version: string; settings: string[] };
  worker_concurrency: number;
  max_active_children_per_user: number;
  client_concurrency: number;
  phases: {
    workers: number;
    /** Every timed dispatch of the dispatch suite's plan (before 2026-12-08: the first 40 only). */
    task: Summary;
    /** The first 40 of them (absent in results from before 2026-12-08, whose `task` they are). */
    task_first_40?: Summary;
    plain: Summary;
    dispatch_marginal_ms: number;
    task_span: Summary;
    /** Absent in results from before 2026-12-06. */
    round_trips?: RoundTrips;
    batch: {
      dispatches: number;
      wall_s: number;
      dispatches_per_s: number;
      runs_per_s: number;
      latency_ms: Summary;
      cpu_ms_per_dispatch: { postgres: number; redis: number; api: number; workers: number[] };
      /** Unrecorded batches before this one (absent in results from before 2026-12-07's afternoon). */
      warmup?: Warmup;
    };
    /** Dispatches one at a time again, after the batches (absent in results from before 2026-12-07's evening). */
    steady_task?: Summary;
  }[];
  /** The embedded server over the same HTTP client (absent in results from before 2026-12-06's last run). */
  embedded_http?: {
    task: Summary;
    task_first_40?: Summary;
    plain: Summary;
    batch: {
      dispatches_per_s: number;
      runs_per_s: number;
      wall_s: number;
      latency_ms: Summary;
      cpu_ms_per_dispatch: number;
      warmup?: Warmup;
    };
    steady_task?: Summary;
  };
  /** The runtime in process after `warmup` unrecorded dispatches (absent before 2026-12-07's evening). */
  in_process_steady?: { warmup: number; task: Summary };
  recovery: {
    workers_before_kill: number;
    victim: string;
    runs: number;
    orphaned_runs: number;
    lease_ms: number;
    lease_renewed_every_ms: number;
    reconciler_every_ms: number;
    step_delay_ms: number;
    kill_to_all_reclaimed_ms: number;
    kill_to_all_completed_ms: number;
    kill_to_completed_ms: Summary;
  };
  load_average: { before: number[]; after: number[] };
}

/** The reference row: the embedded server (SQLite, in-process queue) over the same HTTP client. */
const EMBEDDED_ROW = 'embedded server';

export function printScaleOut(result: ScaleOutResult): void {
  const { recovery, embedded_http: embedded } = result;
  const batch = result.phases[0]?.batch.dispatches ?? 0;
  console.log(
    `\nScale-out: ${result.postgres.version} + ${result.redis.version}, one API process and N worker processes (worker concurrency ${result.worker_concurrency}, active children per user raised to ${result.max_active_children_per_user}), over loopback HTTP`,
  );
  console.log(
    `Throwaway services, NOT durable: PostgreSQL ${result.postgres.settings.join(', ')}; Redis ${result.redis.settings.join(' ')}. Load average ${result.load_average.before.join(' / ')} → ${result.load_average.after.join(' / ')}.`,
  );
  console.log(
    formatTable(
      [
        'one dispatch at a time (ms)',
        'dispatch median',
        'p99',
        'first 40',
        'plain median',
        'dispatch − plain',
        'task span median',
      ],
      [
        ...(embedded
          ? [
              [
                EMBEDDED_ROW,
                embedded.task.median,
                embedded.task.p99,
                embedded.task_first_40?.median ?? '',
                embedded.plain.median,
                '',
                '',
              ],
            ]
          : []),
        ...result.phases.map((phase) => [
          `${phase.workers} worker${phase.workers === 1 ? '' : 's'}`,
          phase.task.median,
          phase.task.p99,
          phase.task_first_40?.median ?? '',
          phase.plain.median,
          phase.dispatch_marginal_ms,
          phase.task_span.median,
        ]),
      ],
    ),
  );
  printRoundTrips(result);
  console.log(
    formatTable(
      [
        `batch of ${batch} dispatches`,
        'dispatches/s',
        'runs/s',
        'wall s',
        'latency p50 ms',
        'p99',
        'CPU ms/dispatch: PostgreSQL',
        'Redis',
        'API',
        'each worker',
      ],
      [
        ...(embedded
          ? [
              [
                EMBEDDED_ROW,
                embedded.batch.dispatches_per_s,
                embedded.batch.runs_per_s,
                embedded.batch.wall_s,
                embedded.batch.latency_ms.median,
                embedded.batch.latency_ms.p99,
                '',
                '',
                `${embedded.batch.cpu_ms_per_dispatch} (one process)`,
                '',
              ],
            ]
          : []),
        ...result.phases.map(({ workers, batch: phase }) => [
          `${workers} worker${workers === 1 ? '' : 's'}`,
          phase.dispatches_per_s,
          phase.runs_per_s,
          phase.wall_s,
          phase.latency_ms.median,
          phase.latency_ms.p99,
          phase.cpu_ms_per_dispatch.postgres,
          phase.cpu_ms_per_dispatch.redis,
          phase.cpu_ms_per_dispatch.api,
          phase.cpu_ms_per_dispatch.workers.map(formatNumber).join(' + '),
        ]),
      ],
    ),
  );
  const warmups = [
    ...(embedded?.batch.warmup ? [[EMBEDDED_ROW, embedded.batch.warmup] as const] : []),
    ...result.phases.flatMap(({ workers, batch: phase }) =>
      phase.warmup ? [[`${workers} worker${workers === 1 ? '' : 's'}`, phase.warmup] as const] : [],
    ),
  ];
  for (const [row, warmup] of warmups) {
    console.log(
      `Warm-up of ${row}: ${warmup.dispatches} unrecorded dispatches in batches; total CPU ms/dispatch per batch ${warmup.cpu_ms_per_dispatch.map(formatNumber).join(' → ')}.`,
    );
  }
  console.log(
    `Runs/s counts both runs of a dispatch (parent and child). The batch is posted ${result.client_concurrency} requests at a time, each dispatch in a conversation of its own; latency is post → run completed.`,
  );
  console.log(
    `\nRecovery: kill -9 ${recovery.victim} while it held ${recovery.orphaned_runs} of ${recovery.runs} running runs (${recovery.workers_before_kill} workers). Lease ${recovery.lease_ms} ms (TROUPE_LEASE_MS), renewed every ${recovery.lease_renewed_every_ms} ms, reconciler every ${recovery.reconciler_every_ms} ms.`,
  );
  console.log(
    formatTable(
      ['metric', 'ms'],
      [
        ['kill → every orphaned run claimed again by a surviving worker', recovery.kill_to_all_reclaimed_ms],
        ['kill → every orphaned run completed', recovery.kill_to_all_completed_ms],
        ['kill → completed, median over the orphaned runs', recovery.kill_to_completed_ms.median],
        ['of which: the interrupted model turn, replayed in full', recovery.step_delay_ms],
      ],
    ),
  );
}

function printRoundTrips(result: ScaleOutResult): void {
  const counted = result.phases.filter((phase) => phase.round_trips);
  if (counted.length === 0) return;
  console.log(
    formatTable(
      [
        'per dispatch, one at a time',
        'PostgreSQL statements',
        'round trips',
        'ms executing',
        'transactions',
        'Redis commands',
      ],
      counted.map(({ workers, round_trips: trips }) => [
        `${workers} worker${workers === 1 ? '' : 's'}`,
        trips?.postgres.statements_per_dispatch ?? 0,
        trips?.postgres.round_trips_per_dispatch ?? '–',
        // Results written before the field existed have none.
        trips?.postgres.exec_ms_per_dispatch ?? '–',
        trips?.postgres.transactions_per_dispatch ?? 0,
        trips?.redis.commands_per_dispatch ?? 0,
      ]),
    ),
  );
  const first = counted[0]?.round_trips;
  if (!first) return;
  console.log(
    formatTable(
      [`most frequent, ${counted[0]?.workers ?? 1} worker(s)`, 'per dispatch'],
      [
        ...first.postgres.top
          .slice(0, 8)
          .map((entry) => [entry.query.slice(0, 90), entry.calls_per_dispatch]),
        ...first.redis.top.slice(0, 8).map((entry) => [`redis ${entry.command}`, entry.calls_per_dispatch]),
      ],
    ),
  );
}
