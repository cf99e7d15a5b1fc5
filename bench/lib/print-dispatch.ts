/** The dispatch suite's tables (see bench/suites/dispatch.ts for everything it records). */
import { formatNumber, formatTable } from './table.js';
import type { Summary } from './stats.js';

interface SampleSet {
  wall: Summary;
  cpu_ms: Summary;
  task_span?: Summary;
  events_per_run?: number;
}
export interface DispatchResult {
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
export function printDispatch(result: DispatchResult): void {
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
