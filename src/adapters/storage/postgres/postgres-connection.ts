import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';
import type pg from 'pg';
import { runLean } from './lean-query.js';
import { isStalePreparedStatement, type StatementNames } from './statement-names.js';
import { storageUnavailable, unavailableAsTroupeError } from './storage-unavailable.js';

/** Results as Kysely's own PostgreSQL connection reports them. */
function toQueryResult<R>(result: pg.QueryResult): QueryResult<R> {
  const { command, rowCount, rows } = result;
  if (command === 'ROLLBACK' || command === 'COMMIT') return { rows: [{ command } as R] };
  const writes = command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE';
  return {
    ...(writes ? { numAffectedRows: BigInt(rowCount ?? 0) } : {}),
    rows: (rows ?? []) as R[],
  };
}

/** What node-postgres keeps private and pg-pool itself reads: whether the client's connection is still usable. */
interface ClientState {
  _queryable?: boolean;
  _ending?: boolean;
  /** The names node-postgres believes this session has prepared (it skips their Parse); its socket. */
  connection?: {
    parsedStatements?: Record<string, string>;
    /** Names whose Parse is written and not yet answered (a pipelined connection). */
    submittedNamedStatements?: Record<string, string>;
    stream?: { cork(): void; uncork(): void };
  };
}

/** One pooled client as the resilient driver (postgres-driver.ts) runs statements on it. */
export class PostgresConnection implements DatabaseConnection {
  /** Set once a statement met a broken connection: the client goes back to the pool to be destroyed. */
  broken = false;
  /** Between BEGIN and its COMMIT or ROLLBACK. */
  inTransaction = false;
  /**
   * The BEGIN of the open transaction while it has not been sent: it leaves in the same write as the
   * transaction's first statement, whose answer comes one round trip later instead of two.
   */
  unsentBegin: string | undefined;
  /** This session's prepared statements, least recently used first (a Map keeps insertion order). */
  readonly #prepared = new Map<string, true>();
  /** Whether this turn's statements are being held for one write (`#holdWritesForTurn`). */
  #corked = false;
  /** Run once this turn's statements are all started, before they leave (`atTurnEnd`). */
  #turnEnd: (() => void) | undefined;

  constructor(
    readonly client: pg.PoolClient,
    /** Undefined: every statement runs unnamed (`TROUPE_DATABASE_PREPARED_STATEMENTS=false`). */
    private readonly names: StatementNames | undefined,
  ) {}

  /**
   * A statement that met a dead connection wrote nothing when it ran inside a transaction (the server rolls an
   * unfinished one back) or was never sent; a COMMIT or an autocommit statement that was sent may have been
   * done before the connection died: its outcome is unknown (`committed: 'unknown'`).
   *
   * The statement is written before this returns, whatever its name needs first: statements a transaction
   * starts together (docs/scale-out.md, "What scales how") reach the server in the order they were started.
   */
  run(
    sql: string,
    parameters: readonly unknown[],
    options: { committing?: boolean; prepared?: boolean } = {},
  ): Promise<pg.QueryResult> {
    const state = this.client as unknown as ClientState;
    const sent = state._queryable !== false && state._ending !== true;
    const begin = this.unsentBegin;
    this.unsentBegin = undefined;
    let name: string | undefined;
    let pending: Promise<pg.QueryResult>;
    this.#holdWritesForTurn(state);
    try {
      name = options.prepared ? this.#nameFor(sql) : undefined;
      const send = (): Promise<pg.QueryResult> => runLean(this.client, sql, parameters as unknown[], name);
      pending = begin === undefined ? send() : this.#sendAfter(begin, send);
    } catch (error) {
      // node-postgres refuses a query config synchronously (a name reused for other SQL): it fails as sent.
      pending = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.#answer(pending, { sql, parameters, name, sent, committing: options.committing === true });
  }

  async #answer(
    pending: Promise<pg.QueryResult>,
    statement: {
      sql: string;
      parameters: readonly unknown[];
      name: string | undefined;
      sent: boolean;
      committing: boolean;
    },
  ): Promise<pg.QueryResult> {
    const { name } = statement;
    try {
      try {
        return await pending;
      } catch (error) {
        if (name === undefined || !isStalePreparedStatement(error)) throw error;
        return await this.#runAgainPrepared(name, statement.sql, statement.parameters, error);
      }
    } catch (error) {
      const outcomeUnknown = statement.sent && (statement.committing || !this.inTransaction);
      const translated = unavailableAsTroupeError(error, outcomeUnknown);
      if (translated !== error) this.broken = true;
      throw translated;
    }
  }

  /**
   * Statements started in one turn of the event loop leave in one write: the socket is corked at the turn's
   * first statement and uncorked once the turn's promise callbacks ran (`process.nextTick` runs after them), so
   * writes a transaction starts together (docs/scale-out.md, "What scales how") reach the server in one packet,
   * which it reads in one wake-up, instead of one system call and one packet each. Nothing waits on a timer.
   */
  #holdWritesForTurn(state: ClientState): void {
    const stream = state.connection?.stream;
    if (this.#corked) return;
    this.#corked = true;
    stream?.cork();
    process.nextTick(() => {
      const last = this.#turnEnd;
      this.#turnEnd = undefined;
      try {
        last?.();
      } finally {
        this.#corked = false;
        stream?.uncork();
      }
    });
  }

  /**
   * Runs `last` at the end of this event-loop turn, once every statement started in it by a promise chain has
   * been written into the held write, and before that write leaves: a statement `last` runs leaves with them
   * (a COMMIT written behind a transaction's last statements: pipelined-transactions.ts). Called from a promise
   * callback, as transaction work is: `process.nextTick` callbacks queued there run once the microtask queue
   * is empty. One per turn.
   */
  atTurnEnd(last: () => void): void {
    if (this.#turnEnd !== undefined)
      throw new Error('A turn of this connection already has its last statement');
    this.#turnEnd = last;
    this.#holdWritesForTurn(this.client);
  }

  /**
   * `begin` and `query` in one write (the pool's clients pipeline: docs/scale-out.md). A BEGIN fails only with
   * its connection, which fails the statement sent behind it too; should it fail alone all the same, the
   * statement ran outside any transaction, so the session is dropped and the outcome is reported unknown.
   */
  async #sendAfter(begin: string, send: () => Promise<pg.QueryResult>): Promise<pg.QueryResult> {
    const stream = (this.client as unknown as ClientState).connection?.stream;
    stream?.cork();
    let opened: Promise<pg.QueryResult>;
    let ran: Promise<pg.QueryResult>;
    try {
      opened = this.client.query(begin);
      ran = send();
    } finally {
      stream?.uncork();
    }
    const [began, result] = await Promise.allSettled([opened, ran]);
    if (began.status === 'rejected') {
      this.broken = true;
      this.inTransaction = false;
      throw began.reason;
    }
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  }

  /**
   * The name to run `sql` under on this session, making room for it when the session holds `limit` prepared
   * statements: the least recently used one is deallocated, written ahead of the statement without waiting
   * for its answer (once the bound is reached). Undefined: run it unnamed.
   */
  #nameFor(sql: string): string | undefined {
    const names = this.names;
    const name = names?.nameOf(sql);
    if (names === undefined || name === undefined) return undefined;
    if (this.#prepared.delete(name)) {
      this.#prepared.set(name, true);
      return name;
    }
    const oldest = this.#prepared.size >= names.limit ? this.#prepared.keys().next().value : undefined;
    if (oldest !== undefined) {
      // A name whose Parse failed was never prepared (26000): its place is free all the same. Whatever else
      // fails it (a broken connection, an aborted transaction) fails the statement behind it too.
      this.client.query(`deallocate ${oldest}`).catch(() => undefined);
      this.#prepared.delete(oldest);
      this.#forget(oldest);
    }
    this.#prepared.set(name, true);
    return name;
  }

  /** node-postgres skips the Parse of a name it believes prepared: once deallocated, it must not. */
  #forget(name: string): void {
    const connection = (this.client as unknown as ClientState).connection;
    if (connection?.parsedStatements) delete connection.parsedStatements[name];
    if (connection?.submittedNamedStatements) delete connection.submittedNamedStatements[name];
  }

  /**
   * A named statement the session can no longer run (statement-names.ts). Outside a transaction it is prepared
   * again and run once more, which is safe: its failure ran nothing. Inside one, the failure aborted the
   * transaction: the connection is dropped, with every statement it prepared, and the caller's transaction
   * fails as `storage_unavailable` (it wrote nothing), which callers already retry.
   */
  async #runAgainPrepared(
    name: string,
    sql: string,
    parameters: readonly unknown[],
    error: unknown,
  ): Promise<pg.QueryResult> {
    this.#forget(name);
    if (this.inTransaction) {
      this.broken = true;
      throw storageUnavailable('The database schema changed under a prepared statement; try again', error);
    }
    // 26000 means there is nothing to deallocate; either way the name is free afterwards.
    await this.client.query(`deallocate ${name}`).catch(() => undefined);
    return await runLean(this.client, sql, parameters as unknown[], name);
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return toQueryResult<R>(await this.run(compiled.sql, compiled.parameters, { prepared: true }));
  }

  /** No repository streams; Kysely's interface asks for the method. */
  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported by this PostgreSQL driver');
  }
}
