/**
 * Statements and round trips one dispatch costs the shared services of a scale-out cluster: PostgreSQL's
 * `pg_stat_statements` (the throwaway cluster preloads it; BEGIN and COMMIT count as statements; a BEGIN leaves
 * in one write with its transaction's first statement, so it is no round trip of its own) and Redis's
 * `INFO commandstats`. Both count every client: the API process, the workers and the run queue alike.
 */
import { Redis } from 'ioredis';
import pg from 'pg';
import { round } from './stats.js';

export interface RoundTrips {
  postgres: {
    statements_per_dispatch: number;
    /**
     * The round trips the server processes waited for, as they count them (postgres-waits-hook.ts): a BEGIN
     * and the writes a transaction starts together share one. Without that count (the bench not compiled),
     * statements less the BEGINs, an upper bound.
     */
    round_trips_per_dispatch: number;
    transactions_per_dispatch: number;
    /**
     * Time PostgreSQL spent executing the statements (`pg_stat_statements.total_exec_time`, planning and the
     * protocol around them left out): with the round trips, what tells the statements' own cost from their
     * messages' (BENCHMARKS.md, "Round trips, not statements").
     */
    exec_ms_per_dispatch?: number;
    /** The most frequent statements, normalised by PostgreSQL (`$1` for values). */
    top: { calls_per_dispatch: number; exec_ms_per_dispatch: number; query: string }[];
  };
  redis: { commands_per_dispatch: number; top: { calls_per_dispatch: number; command: string }[] };
}

export interface RoundTripProbe {
  /** Zeroes the counters (PostgreSQL) or notes them (Redis). */
  start(): Promise<void>;
  /** What happened since `start`, divided by `dispatches`. */
  read(dispatches: number): Promise<RoundTrips>;
  close(): Promise<void>;
}

function commandStats(info: string): Map<string, number> {
  const calls = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    calls.set(match[1] ?? '', Number(match[2]));
  return calls;
}

export async function roundTripProbe(postgresUrl: string, redisUrl: string): Promise<RoundTripProbe> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let redisBefore = new Map<string, number>();
  // The probe's own statements are left out by text; its Redis INFO calls by name.
  const own = `query NOT ILIKE '%pg_stat_statements%' AND query NOT ILIKE '%pg_stat_database%'`;
  const commits = async () =>
    Number(
      (
        await client.query<{ n: string }>(
          `SELECT xact_commit::text AS n FROM pg_stat_database WHERE datname = current_database()`,
        )
      ).rows[0]?.n ?? 0,
    );
  let commitsBefore = 0;
  return {
    async start() {
      await client.query('SELECT pg_stat_statements_reset()');
      commitsBefore = await commits();
      redisBefore = commandStats(await redis.info('commandstats'));
    },
    async read(dispatches) {
      // Backends flush their transaction counts to pg_stat_database at most once a second.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const per = (count: number) => round(count / dispatches);
      const rows = (
        await client.query<{ calls: string; exec_ms: number; query: string }>(
          `SELECT calls::text AS calls, total_exec_time AS exec_ms, query FROM pg_stat_statements WHERE ${own} ORDER BY pg_stat_statements.calls DESC`,
        )
      ).rows;
      // The probe's own transactions in between: the count `start` read and the pg_stat_statements read.
      const transactions = (await commits()) - commitsBefore - 2;
      const redisAfter = commandStats(await redis.info('commandstats'));
      const redisCalls = [...redisAfter]
        .filter(([command]) => command !== 'info')
        .map(([command, calls]) => ({ command, calls: calls - (redisBefore.get(command) ?? 0) }))
        .filter((entry) => entry.calls > 0)
        .sort((a, b) => b.calls - a.calls);
      const statements = rows.reduce((sum, row) => sum + Number(row.calls), 0);
      const begins = rows
        .filter((row) => /^\s*begin\b/i.test(row.query))
        .reduce((sum, row) => sum + Number(row.calls), 0);
      return {
        postgres: {
          statements_per_dispatch: per(statements),
          round_trips_per_dispatch: per(statements - begins),
          transactions_per_dispatch: per(transactions),
          exec_ms_per_dispatch: round(rows.reduce((sum, row) => sum + row.exec_ms, 0) / dispatches),
          top: rows.slice(0, 40).map((row) => ({
            calls_per_dispatch: per(Number(row.calls)),
            exec_ms_per_dispatch: round(row.exec_ms / dispatches),
            query: row.query.replace(/\s+/g, ' ').slice(0, 160),
          })),
        },
        redis: {
          commands_per_dispatch: per(redisCalls.reduce((sum, entry) => sum + entry.calls, 0)),
          top: redisCalls.slice(0, 12).map((entry) => ({
            calls_per_dispatch: per(entry.calls),
            command: entry.command,
          })),
        },
      };
    },
    async close() {
      await client.end();
      redis.disconnect();
    },
  };
}
