import type BetterSqlite3 from 'better-sqlite3';
import { rootRequire } from './root-require.js';

/** Counters of one SQL text executed through better-sqlite3 in this process. */
export interface SqlStat {
  sql: string;
  kind: string;
  count: number;
  ms: number;
}

export interface SqliteProbe {
  /** Counters since the last reset. */
  snapshot(): SqlStat[];
  reset(): void;
  /** Stops counting and restores the original methods. */
  stop(): void;
}

type StatementMethod = (this: BetterSqlite3.Statement, ...args: unknown[]) => unknown;

/** INSERT, SELECT, UPDATE, DELETE, BEGIN, COMMIT… (`WITH … INSERT` counts as an INSERT). */
export function statementKind(sql: string): string {
  const text = sql.trim().toUpperCase();
  const first = /^[A-Z]+/.exec(text)?.[0] ?? '?';
  if (first === 'WITH') {
    for (const verb of ['INSERT', 'UPDATE', 'DELETE']) if (text.includes(`${verb} `)) return verb;
    return 'SELECT';
  }
  return first;
}

/**
 * Wraps the prototype methods of better-sqlite3's Statement (the server's copy, process-wide) to count each
 * statement and the time it spends inside SQLite; better-sqlite3 is synchronous, so that time is exact.
 * Only the instrumented pass uses it, never a timed pass.
 */
export function startSqliteProbe(): SqliteProbe {
  const Database = rootRequire('better-sqlite3') as typeof BetterSqlite3;
  const scratch = new Database(':memory:');
  const proto = Object.getPrototypeOf(scratch.prepare('select 1')) as Record<string, StatementMethod>;
  scratch.close();
  const stats = new Map<string, SqlStat>();
  const originals = new Map<string, StatementMethod>();
  for (const name of ['run', 'get', 'all', 'iterate']) {
    const original = proto[name];
    if (!original) continue;
    originals.set(name, original);
    proto[name] = function (this: BetterSqlite3.Statement, ...args: unknown[]) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        const ms = performance.now() - started;
        const sql = this.source;
        let entry = stats.get(sql);
        if (!entry) {
          entry = { sql, kind: statementKind(sql), count: 0, ms: 0 };
          stats.set(sql, entry);
        }
        entry.count += 1;
        entry.ms += ms;
      }
    };
  }
  return {
    snapshot: () => [...stats.values()].map((entry) => ({ ...entry })),
    reset: () => stats.clear(),
    stop() {
      for (const [name, original] of originals) proto[name] = original;
    },
  };
}
