/**
 * Benchmark 4: run-start throughput and latency over loopback with autocannon, against
 * `POST /api/conversations/{id}/messages`. Each new-run request has a conversation of its own (one active run
 * per thread) and a unique request_id; the replay phase re-sends exactly those (conversation, request_id)
 * pairs, which must return the existing runs and create none. Each server first answers a warm-up of new runs
 * on conversations of their own (JIT compilation, statement caches), as the dispatch suite warms up before it
 * measures; the figures are of the requests after it.
 */
import { startBenchServer, type BenchServer } from '../lib/bench-server.js';
import { stopChild } from '../lib/child.js';
import { round } from '../lib/stats.js';
import { progress, runSuite } from '../lib/suite.js';

interface Histogram {
  average: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

interface AutocannonResult {
  requests: Histogram;
  latency: Histogram;
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
}

interface RawRequest {
  method?: string;
  path?: string;
  body?: string;
  headers?: Record<string, string>;
}

type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

/** From bench/node_modules; a computed specifier keeps the root typecheck independent of it. */
const AUTOCANNON = 'autocannon';

interface ServerState {
  counts: Record<string, number>;
  /** CPU time the server process has used so far (user + system). */
  cpu_ms: number;
}

async function serverState(server: BenchServer): Promise<ServerState> {
  const answer = server.lines.waitForNext((line) => line.startsWith('{"counts"'));
  server.child.stdin?.write('count\n');
  return JSON.parse(await answer) as ServerState;
}

function summarizeRun(result: AutocannonResult, expectedStatus: number) {
  const total = result['2xx'] + result.non2xx;
  return {
    requests: total,
    duration_s: round(result.duration),
    req_per_s: round(total / result.duration),
    latency_ms: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: round(result.latency.average),
    },
    status_codes: Object.fromEntries(
      Object.entries(result.statusCodeStats).map(([code, stat]) => [code, stat.count]),
    ),
    unexpected_status: total - (result.statusCodeStats[String(expectedStatus)]?.count ?? 0),
    errors: result.errors,
    timeouts: result.timeouts,
  };
}

await runSuite('http', async ({ quick }) => {
  const autocannon = (await import(AUTOCANNON)) as { default: Autocannon };
  const amount = quick ? 300 : 3000;
  const withWorker = quick ? 200 : 1000;
  const warmUp = quick ? 50 : 500;
  const connections = 20;
  const results: Record<string, unknown> = { connections, pipelining: 1 };

  const run = async (
    server: BenchServer,
    requests: number,
    pick: (index: number) => { conversation: string; requestId: string },
  ) => {
    let index = 0;
    return autocannon.default({
      url: server.url,
      connections,
      amount: requests,
      // autocannon notices that `amount` is reached only on its sample tick (1 s by default), so the reported
      // duration was rounded up to whole seconds (3,000 requests: 1,493 or 2,970 req/s, nothing between).
      sampleInt: 10,
      // Generous: under a saturated loopback a slow answer is data for the histogram, not a dropped request.
      timeout: 60,
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      requests: [
        {
          method: 'POST',
          setupRequest(request: RawRequest): RawRequest {
            const { conversation, requestId } = pick(index++);
            return {
              ...request,
              path: `/api/conversations/${conversation}/messages`,
              body: JSON.stringify({ content: `hello ${requestId}`, request_id: requestId }),
            };
          },
        },
      ],
    });
  };

  /** Request `index` of a phase: conversation `offset + index` of the server, request id `prefix-index`. */
  const numbered = (server: BenchServer, prefix: string, offset: number) => (index: number) => ({
    conversation: server.conversations[offset + index] ?? '',
    requestId: `${prefix}-${index}`,
  });

  // 1 and 2: API process without a worker — the run-start path alone, then replays of the same requests.
  progress('http', `api-only server: ${amount} new runs, then ${amount} replays, ${connections} connections`);
  const api = await startBenchServer('api', amount + warmUp);
  try {
    const pair = numbered(api, 'bench', 0);
    await run(api, warmUp, numbered(api, 'warm-up', amount));
    const before = await serverState(api);
    const fresh = await run(api, amount, pair);
    const afterFresh = await serverState(api);
    const replay = await run(api, amount, pair);
    const afterReplay = await serverState(api);
    results.new_runs_api_only = {
      ...summarizeRun(fresh, 202),
      server_cpu_ms_per_request: round((afterFresh.cpu_ms - before.cpu_ms) / amount),
      runs_created: (afterFresh.counts.total ?? 0) - (before.counts.total ?? 0),
    };
    results.replays = {
      ...summarizeRun(replay, 202),
      server_cpu_ms_per_request: round((afterReplay.cpu_ms - afterFresh.cpu_ms) / amount),
      runs_created: (afterReplay.counts.total ?? 0) - (afterFresh.counts.total ?? 0),
    };
  } finally {
    api.child.stdin?.write('exit\n');
    await stopChild(api.child, 10_000);
  }

  // 3: a server that also executes every run it starts (one-step scripted answer), as `npm start` does.
  progress('http', `server with worker: ${withWorker} new runs executed as they arrive`);
  const full = await startBenchServer('all', withWorker + warmUp);
  try {
    const ended = (count: number) => {
      const answer = full.lines.waitForNext((line) => line.startsWith('{"ended"'), 300_000);
      full.child.stdin?.write(`wait ${count}\n`);
      return answer;
    };
    await run(full, warmUp, numbered(full, 'warm-up', withWorker));
    await ended(warmUp);
    const before = await serverState(full);
    const started = performance.now();
    const fresh = await run(full, withWorker, numbered(full, 'bench', 0));
    await ended(warmUp + withWorker);
    const drained = performance.now() - started;
    const state = await serverState(full);
    const completed = (state.counts.completed ?? 0) - (before.counts.completed ?? 0);
    results.new_runs_with_worker = {
      ...summarizeRun(fresh, 202),
      server_cpu_ms_per_run: round((state.cpu_ms - before.cpu_ms) / withWorker),
      runs_completed: completed,
      runs_failed: (state.counts.failed ?? 0) - (before.counts.failed ?? 0),
      all_done_after_s: round(drained / 1000),
      completed_runs_per_s: round(completed / (drained / 1000)),
    };
  } finally {
    full.child.stdin?.write('exit\n');
    await stopChild(full.child, 10_000);
  }
  return results;
});
