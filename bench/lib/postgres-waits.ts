import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { RUNNING_COMPILED } from './root-require.js';

/** Statements, round trips and transactions of the processes on PostgreSQL, as postgres-waits-hook.ts counts them. */
export interface PostgresWaits {
  statements: number;
  round_trips: number;
  transactions: number;
}

export interface PostgresWaitsCounter {
  /** What the cluster's processes need in their environment to count. */
  env: Record<string, string>;
  /** The processes' totals so far, summed. */
  read(pids: readonly number[]): Promise<PostgresWaits>;
  close(): void;
}

/**
 * A counter for server processes started with `env`; `read` asks each one for its totals (SIGUSR2). Only the
 * compiled bench (`npm run bench`) has the hook as JavaScript to preload: elsewhere there is no counter.
 */
export function postgresWaitsCounter(): PostgresWaitsCounter | undefined {
  if (!RUNNING_COMPILED) return undefined;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-bench-pg-waits-'));
  const hook = pathToFileURL(path.join(import.meta.dirname, 'postgres-waits-hook.js')).href;
  const fileOf = (pid: number) => path.join(dir, `${pid}.json`);
  const writtenAt = (pid: number) => {
    try {
      return statSync(fileOf(pid)).mtimeMs;
    } catch {
      return 0;
    }
  };
  return {
    env: {
      TROUPE_BENCH_PG_WAITS_DIR: dir,
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${hook}`.trim(),
    },
    async read(pids) {
      const before = new Map(pids.map((pid) => [pid, writtenAt(pid)]));
      for (const pid of pids) process.kill(pid, 'SIGUSR2');
      const deadline = Date.now() + 5_000;
      while (pids.some((pid) => writtenAt(pid) === before.get(pid))) {
        if (Date.now() > deadline) throw new Error('a server process did not report its PostgreSQL counts');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const totals = { statements: 0, round_trips: 0, transactions: 0 };
      for (const pid of pids) {
        const counted = JSON.parse(readFileSync(fileOf(pid), 'utf8')) as PostgresWaits;
        totals.statements += counted.statements;
        totals.round_trips += counted.round_trips;
        totals.transactions += counted.transactions;
      }
      return totals;
    },
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
