import type { CompiledQuery, QueryResult, SqliteDatabase } from 'kysely';
import type { DirectQueryRunner } from '../sql/sql-context.js';
import { busyAsTroupeError } from './busy-error.js';
import type { ConnectionGate } from './connection-gate.js';

/**
 * Runs a prepared query on the one connection without Kysely's executor: no connection hand-over, no
 * promise per step, the statement straight from the cache. Safe because better-sqlite3 is synchronous:
 * nothing can interleave with the call. It runs only where Kysely's path would run the statement at once
 * and on the same connection: inside the caller's own transaction (which holds the connection), or when
 * nobody holds or waits for the connection; otherwise it declines and the query queues as before, so no
 * statement ever lands inside another caller's transaction or overtakes a waiting one.
 */
export function createDirectQueryRunner(database: SqliteDatabase, gate: ConnectionGate): DirectQueryRunner {
  return {
    run<R>(compiled: CompiledQuery, parameters: readonly unknown[], inTransaction: boolean) {
      if (!inTransaction && gate.pending > 0) return undefined;
      const statement = database.prepare(compiled.sql);
      try {
        if (statement.reader) return { rows: statement.all(parameters) as R[] };
        const { changes } = statement.run(parameters);
        return { rows: [], numAffectedRows: BigInt(changes) } satisfies QueryResult<R>;
      } catch (error) {
        throw busyAsTroupeError(error);
      }
    },
  };
}
