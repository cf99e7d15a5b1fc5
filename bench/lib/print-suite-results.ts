/**
 * The tables `npm run bench` prints from the suites' JSON results, one printer per suite. The interfaces are
 * the result shapes the tables read (see each suite for everything it records).
 */
import { formatNumber, formatTable } from './table.js';
import { printConsole, type ConsoleResult } from './print-console.js';
import { printScaleOut, type ScaleOutResult } from './print-scale-out.js';
import { printScaleOutVsEmbedded } from './print-scale-out-vs-embedded.js';
import type { SuiteName } from './suite-registry.js';
import type { Summary } from './stats.js';
import { printCost, type CostResult } from './print-cost.js';
import { printDispatch, type DispatchResult } from './print-dispatch.js';
import { printKnowledge, type KnowledgeResult } from './print-knowledge.js';
import { printProviders, type ProvidersResult } from './print-providers.js';

// The result shapes the table reads (see the suites for everything they record).
interface FanoutResult {
  parents: number;
  children_per_parent: number;
  fanout_window_ms: number;
  wall_ms_from_gate_release: number;
  cpu_seconds: number;
  events_per_second_in_window: number;
  runs_per_second_in_window: number;
  rss_mib: { baseline: number; peak: number };
  sse: { subscribers: number; latency_ms: Summary & { n: number }; streams_with_lost_events: number };
  ok: boolean;
}
interface HttpPhase {
  requests: number;
  req_per_s: number;
  latency_ms: { p50: number; p99: number };
  unexpected_status: number;
  server_cpu_ms_per_request?: number;
  server_cpu_ms_per_run?: number;
  runs_created?: number;
}
interface HttpResult {
  connections: number;
  new_runs_api_only: HttpPhase;
  replays: HttpPhase;
  new_runs_with_worker: HttpPhase & { completed_runs_per_s: number };
}

interface CancelResult {
  children: number;
  rounds: number;
  cancel_to_terminal_tree_ms: Summary;
  cancel_api_return_ms: Summary;
  ok: boolean;
}

function printCancel(result: CancelResult): void {
  console.log(
    `\nStop guarantee: cancel a parent with ${result.children} running children → whole tree terminal (${result.rounds} rounds${result.ok ? '' : ', FAILURES'})`,
  );
  console.log(
    formatTable(
      ['metric', 'median', 'p99'],
      [
        [
          'cancel → every run terminal (ms)',
          result.cancel_to_terminal_tree_ms.median,
          result.cancel_to_terminal_tree_ms.p99,
        ],
        ['cancel API call returns (ms)', result.cancel_api_return_ms.median, result.cancel_api_return_ms.p99],
      ],
    ),
  );
}

function printFanout(result: FanoutResult): void {
  console.log(
    `\nFan-out: ${result.parents} parents × ${result.children_per_parent} children at once, ${result.sse.subscribers} SSE subscribers`,
  );
  console.log(
    formatTable(
      ['metric', 'value'],
      [
        ['fan-out window, first child start → last parent end (ms)', result.fanout_window_ms],
        ['wall, gate release → all parents done (ms)', result.wall_ms_from_gate_release],
        ['CPU time of the server process (s)', result.cpu_seconds],
        ['runs per second (window)', result.runs_per_second_in_window],
        ['events per second (window)', result.events_per_second_in_window],
        [
          'RSS baseline → peak (MiB)',
          `${formatNumber(result.rss_mib.baseline)} → ${formatNumber(result.rss_mib.peak)}`,
        ],
        ['SSE delivery latency p50 (ms)', result.sse.latency_ms.median],
        ['SSE delivery latency p99 (ms)', result.sse.latency_ms.p99],
        ['SSE streams that missed events', result.sse.streams_with_lost_events],
        ['all runs completed, events gapless', result.ok ? 'yes' : 'NO'],
      ],
    ),
  );
}

function printHttp(result: HttpResult): void {
  console.log(
    `\nHTTP: POST /api/conversations/{id}/messages over loopback (autocannon, ${result.connections} connections)`,
  );
  const row = (label: string, phase: HttpPhase): (string | number)[] => [
    label,
    phase.requests,
    phase.req_per_s,
    phase.latency_ms.p50,
    phase.latency_ms.p99,
    phase.server_cpu_ms_per_request ?? phase.server_cpu_ms_per_run ?? Number.NaN,
    phase.unexpected_status,
  ];
  console.log(
    formatTable(
      ['phase', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'server CPU ms/req', 'non-202'],
      [
        row('new runs, API process without worker', result.new_runs_api_only),
        row('idempotent replays (same request_id)', result.replays),
        row('new runs, server also executing them', result.new_runs_with_worker),
      ],
    ),
  );
  console.log(
    `Replays created ${result.replays.runs_created ?? '?'} runs; with a worker, ${formatNumber(result.new_runs_with_worker.completed_runs_per_s)} runs/s completed end to end.`,
  );
}

/** Prints the table of every suite that ran, in the registry's order. */
export function printSuiteResults(suites: Partial<Record<SuiteName, unknown>>): void {
  if (suites.dispatch) printDispatch(suites.dispatch as DispatchResult);
  if (suites.cost) printCost(suites.cost as CostResult);
  if (suites.fanout) printFanout(suites.fanout as FanoutResult);
  if (suites.http) printHttp(suites.http as HttpResult);
  if (suites.knowledge) printKnowledge(suites.knowledge as KnowledgeResult);
  if (suites.cancel) printCancel(suites.cancel as CancelResult);
  if (suites.providers) printProviders(suites.providers as ProvidersResult);
  if (suites['scale-out']) printScaleOut(suites['scale-out'] as ScaleOutResult);
  if (suites.dispatch && suites['scale-out'])
    printScaleOutVsEmbedded(
      suites.dispatch as Parameters<typeof printScaleOutVsEmbedded>[0],
      suites['scale-out'] as ScaleOutResult,
    );
  if (suites.console) printConsole(suites.console as ConsoleResult);
}
