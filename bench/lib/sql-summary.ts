import { round } from './stats.js';
import type { SqlStat } from './sqlite-probe.js';

/** What the SQLite probe saw, per run: statement counts by kind, time inside SQLite, the costliest statements. */
export interface SqlSummary {
  statements_per_run: number;
  writes_per_run: number;
  transactions_per_run: number;
  by_kind: Record<string, number>;
  sqlite_ms_per_run: number;
  top_statements: { sql: string; per_run: number; ms_per_run: number }[];
}

export function sqlSummary(stats: SqlStat[], runs: number): SqlSummary {
  const byKind: Record<string, number> = {};
  let statements = 0;
  let ms = 0;
  for (const stat of stats) {
    byKind[stat.kind] = round((byKind[stat.kind] ?? 0) + stat.count / runs);
    statements += stat.count;
    ms += stat.ms;
  }
  const writes = (byKind.INSERT ?? 0) + (byKind.UPDATE ?? 0) + (byKind.DELETE ?? 0);
  return {
    statements_per_run: round(statements / runs),
    writes_per_run: round(writes),
    transactions_per_run: round(byKind.BEGIN ?? 0),
    by_kind: byKind,
    sqlite_ms_per_run: round(ms / runs),
    top_statements: [...stats]
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 40)
      .map((stat) => ({
        sql: stat.sql.replace(/\s+/g, ' ').trim().slice(0, 140),
        per_run: round(stat.count / runs),
        ms_per_run: round(stat.ms / runs),
      })),
  };
}
