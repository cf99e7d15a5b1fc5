/**
 * The tables `npm run bench` prints from the suites' JSON results, one printer per suite. The interfaces are
 * the result shapes the tables read (see each suite for everything it records).
 */
import { formatNumber, formatTable } from './table.js';
import { printConsole, type ConsoleResult } from './print-console.js';
import { printScaleOut, type ScaleOutResult } from './print-scale-out.js';
import type { SuiteName } from './suite-registry.js';

// The result shapes the table reads (see the suites for everything they record).
interface Summary {
  median: number;
  p99: number;
}
interface SampleSet {
  wall: Summary;
  cpu_ms: Summary;
  task_span?: Summary;
  events_per_run?: number;
}
interface DispatchResult {
  troupe: {
    task: SampleSet;
    plain: SampleSet;
    goal: { met: boolean };
    sql_per_dispatch: {
      statements_per_run: number;
      writes_per_run: number;
      transactions_per_run: number;
      sqlite_ms_per_run: number;
    };
    cpu_profile: { categories: { category: string; ms_per_run: number; share: number }[] };
  };
  deepagents: Record<'none' | 'memory' | 'sqlite', { task: SampleSet; plain: SampleSet }> & {
    version: string;
    sql_per_dispatch_sqlite_saver: {
      statements_per_run: number;
      writes_per_run: number;
      transactions_per_run: number;
      sqlite_ms_per_run: number;
    };
  };
  ratios: Record<string, { wall_median: number; cpu_median: number }>;
}
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

interface KnowledgeResult {
  corpus: { documents: number; chunks: number; bytes: number };
  indexing: { wall_s: number; chunks_per_s: number; mib_per_s: number };
  search: {
    queries: number;
    top_k: number;
    knowledge_search_tool_ms: Summary;
    knowledge_search_tool_cpu_ms: Summary;
    index_query_ms: Summary;
  };
  bomb_upload?: {
    bomb_inflated_mib: number;
    upload_status: number;
    upload_ms: number;
    me_idle_ms: Summary;
    me_during_bomb_ms: Summary;
    peak_rss_growth_mib: number;
  };
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

interface ProvidersResult {
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

function printProviders(result: ProvidersResult): void {
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

function printKnowledge(result: KnowledgeResult): void {
  const { corpus, indexing, search, bomb_upload: bomb } = result;
  console.log(
    `\nKnowledge: ${formatNumber(corpus.chunks)} chunks from ${corpus.documents} Markdown documents (${formatNumber(corpus.bytes / 1024 / 1024)} MiB), SQLite FTS5`,
  );
  console.log(
    formatTable(
      ['metric', 'value'],
      [
        ['indexing throughput (chunks/s)', indexing.chunks_per_s],
        ['indexing wall (s)', indexing.wall_s],
        [`knowledge_search median (ms, top_k ${search.top_k})`, search.knowledge_search_tool_ms.median],
        ['knowledge_search p99 (ms)', search.knowledge_search_tool_ms.p99],
        ['knowledge_search CPU median (ms)', search.knowledge_search_tool_cpu_ms.median],
        ['index query alone median (ms)', search.index_query_ms.median],
        ['index query alone p99 (ms)', search.index_query_ms.p99],
        ...(bomb
          ? [
              ['GET /api/me p99, idle (ms)', bomb.me_idle_ms.p99],
              [
                `GET /api/me p99, during a ${bomb.bomb_inflated_mib} MiB PDF bomb (ms)`,
                bomb.me_during_bomb_ms.p99,
              ],
              [`bomb refused (HTTP ${bomb.upload_status}) after (ms)`, bomb.upload_ms],
              ['peak RSS growth during the bomb (MiB)', bomb.peak_rss_growth_mib],
            ]
          : []),
      ],
    ),
  );
}

function printDispatch(result: DispatchResult): void {
  const { troupe, deepagents } = result;
  const row = (label: string, set: SampleSet, span?: Summary): (string | number)[] => [
    label,
    set.wall.median,
    set.wall.p99,
    set.cpu_ms.median,
    span ? span.median : Number.NaN,
  ];
  console.log(
    `\nDispatch: main agent → task → subagent → answer (scripted model, zero latency; ms per round trip)`,
  );
  console.log(
    formatTable(
      ['contender', 'median', 'p99', 'CPU median', 'task span median'],
      [
        row('Troupe embedded (SQLite, queue, bus): one task dispatch', troupe.task, troupe.task.task_span),
        row('Troupe: same agent, plain answer (no dispatch)', troupe.plain),
        row(`deepagents ${deepagents.version}, no checkpointer: one task dispatch`, deepagents.none.task),
        row('deepagents + MemorySaver', deepagents.memory.task),
        row('deepagents + SqliteSaver (WAL, synchronous=NORMAL)', deepagents.sqlite.task),
        row('deepagents, no checkpointer, plain answer', deepagents.none.plain),
      ],
    ),
  );
  console.log(
    formatTable(
      ['ratio Troupe / deepagents (one dispatch)', 'wall median', 'CPU median'],
      Object.entries(result.ratios).map(([name, ratio]) => [name, ratio.wall_median, ratio.cpu_median]),
    ),
  );
  const sql = troupe.sql_per_dispatch;
  const deepSql = deepagents.sql_per_dispatch_sqlite_saver;
  console.log(
    formatTable(
      ['per dispatch', 'SQL statements', 'writes', 'transactions', 'ms in SQLite', 'events'],
      [
        [
          'Troupe',
          sql.statements_per_run,
          sql.writes_per_run,
          sql.transactions_per_run,
          sql.sqlite_ms_per_run,
          troupe.task.events_per_run ?? Number.NaN,
        ],
        [
          'deepagents + SqliteSaver',
          deepSql.statements_per_run,
          deepSql.writes_per_run,
          deepSql.transactions_per_run,
          deepSql.sqlite_ms_per_run,
          Number.NaN,
        ],
      ],
    ),
  );
  console.log(
    `Goal "median at most 5 ms per dispatch": ${troupe.goal.met ? 'MET' : 'NOT MET'} (median ${formatNumber(troupe.task.wall.median)} ms).`,
  );
  console.log(
    `Where Troupe's CPU goes (sampled, instrumented pass): ${troupe.cpu_profile.categories
      .slice(0, 6)
      .map((entry) => `${entry.category} ${Math.round(entry.share * 100)}%`)
      .join(', ')}`,
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
  if (suites.fanout) printFanout(suites.fanout as FanoutResult);
  if (suites.http) printHttp(suites.http as HttpResult);
  if (suites.knowledge) printKnowledge(suites.knowledge as KnowledgeResult);
  if (suites.cancel) printCancel(suites.cancel as CancelResult);
  if (suites.providers) printProviders(suites.providers as ProvidersResult);
  if (suites['scale-out']) printScaleOut(suites['scale-out'] as ScaleOutResult);
  if (suites.console) printConsole(suites.console as ConsoleResult);
}
