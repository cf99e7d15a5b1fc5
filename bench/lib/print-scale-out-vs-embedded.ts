import { round } from './stats.js';
import type { ScaleOutResult } from './print-scale-out.js';

/** The parts of the dispatch suite's result the comparison reads. */
interface EmbeddedDispatch {
  troupe: {
    task: { wall: { median: number } };
    sql_per_dispatch?: { statements_per_run: number; transactions_per_run: number };
  };
}

/**
 * Issue 39's targets, when one `npm run bench` ran both suites: the 1-worker scale-out dispatch against the
 * embedded one, the cluster's CPU per dispatch, and PostgreSQL's statements and round trips (a transaction's
 * BEGIN shares its first statement's) beside SQLite's statements.
 */
export function printScaleOutVsEmbedded(embedded: EmbeddedDispatch, scaleOut: ScaleOutResult): void {
  const phase = scaleOut.phases.find((candidate) => candidate.workers === 1);
  if (!phase) return;
  const embeddedMs = embedded.troupe.task.wall.median;
  const cpu = phase.batch.cpu_ms_per_dispatch;
  const clusterCpu = round(cpu.postgres + cpu.redis + cpu.api + cpu.workers.reduce((sum, ms) => sum + ms, 0));
  const sqlite = embedded.troupe.sql_per_dispatch;
  const postgres = phase.round_trips?.postgres;
  console.log(
    `Scale-out (1 worker) against embedded: dispatch ${phase.task.median} / ${embeddedMs} ms = ${round(phase.task.median / embeddedMs)}× (target ≤ 4×); cluster CPU ${clusterCpu} ms per dispatch (target ≤ 15 ms).`,
  );
  const first = phase.task_first_40;
  if (first)
    console.log(
      `Of those dispatches, the first 40 timed (what the cluster's side of the ratio was before 2026-12-08): ${first.median} ms = ${round(first.median / embeddedMs)}× the embedded median.`,
    );
  const overHttp = scaleOut.embedded_http;
  if (overHttp)
    console.log(
      `Like for like, against the embedded server over the same HTTP client: dispatch ${phase.task.median} / ${overHttp.task.median} ms = ${round(phase.task.median / overHttp.task.median)}×; CPU ${clusterCpu} / ${overHttp.batch.cpu_ms_per_dispatch} ms per dispatch = ${round(clusterCpu / overHttp.batch.cpu_ms_per_dispatch)}×; batch ${phase.batch.dispatches_per_s} / ${overHttp.batch.dispatches_per_s} dispatches/s.`,
    );
  const steady = phase.steady_task;
  const inProcess = scaleOut.in_process_steady;
  if (steady && inProcess)
    console.log(
      `In steady state (every process past its warm-up batches; the runtime in process after ${inProcess.warmup} dispatches): dispatch ${steady.median} / ${inProcess.task.median} ms = ${round(steady.median / inProcess.task.median)}×${overHttp?.steady_task ? `; over the same HTTP client ${steady.median} / ${overHttp.steady_task.median} ms = ${round(steady.median / overHttp.steady_task.median)}×` : ''}.`,
    );
  if (postgres && sqlite)
    console.log(
      `Per dispatch: PostgreSQL ${postgres.statements_per_dispatch} statements in ${postgres.round_trips_per_dispatch ?? postgres.statements_per_dispatch} round trips (${postgres.transactions_per_dispatch} transactions, autocommits included); SQLite ${sqlite.statements_per_run} statements (${sqlite.transactions_per_run} transactions), in process.`,
    );
}
