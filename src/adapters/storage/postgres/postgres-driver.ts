import {
  PostgresAdapter,
  type CompiledQuery,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { SearchPathIntrospector } from './search-path-introspector.js';
import { isStalePreparedStatement, type StatementNames } from './statement-names.js';
import { storageUnavailable, unavailableAsTroupeError } from './storage-unavailable.js';

/*
 * Kysely's PostgreSQL driver, written for a server that restarts (docs/scale-out.md, "Outages"): a failure of
 * the connection is `storage_unavailable` wherever it surfaces (acquiring a client, any statement, the COMMIT),
 * and a client whose connection broke is dropped from the pool, which opens new ones as they are needed.
 * Every client gets its 'error' listener when the pool creates it (`listenToEveryClient`), so a connection that
 * dies while a query runs on it can no longer crash the process.
 */

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
  connection?: { parsedStatements?: Record<string, string>; stream?: { cork(): void; uncork(): void } };
}

class PostgresConnection implements DatabaseConnection {
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

  constructor(
    readonly client: pg.PoolClient,
    /** Undefined: every statement runs unnamed (`TROUPE_DATABASE_PREPARED_STATEMENTS=false`). */
    private readonly names: StatementNames | undefined,
  ) {}

  /**
   * A statement that met a dead connection wrote nothing when it ran inside a transaction (the server rolls an
   * unfinished one back) or was never sent; a COMMIT or an autocommit statement that was sent may have been
   * done before the connection died: its outcome is unknown (`committed: 'unknown'`).
   */
  async run(
    sql: string,
    parameters: readonly unknown[],
    options: { committing?: boolean; prepared?: boolean } = {},
  ): Promise<pg.QueryResult> {
    const state = this.client as unknown as ClientState;
    const sent = state._queryable !== false && state._ending !== true;
    const begin = this.unsentBegin;
    this.unsentBegin = undefined;
    try {
      const name = options.prepared ? await this.#nameFor(sql) : undefined;
      const query: pg.QueryConfig = { text: sql, values: parameters as unknown[] };
      if (name !== undefined) query.name = name;
      try {
        return begin === undefined ? await this.client.query(query) : await this.#sendAfter(begin, query);
      } catch (error) {
        if (name === undefined || !isStalePreparedStatement(error)) throw error;
        return await this.#runAgainPrepared(name, sql, parameters, error);
      }
    } catch (error) {
      const outcomeUnknown = sent && (options.committing === true || !this.inTransaction);
      const translated = unavailableAsTroupeError(error, outcomeUnknown);
      if (translated !== error) this.broken = true;
      throw translated;
    }
  }

  /**
   * `begin` and `query` in one write (the pool's clients pipeline: docs/scale-out.md). A BEGIN fails only with
   * its connection, which fails the statement sent behind it too; should it fail alone all the same, the
   * statement ran outside any transaction, so the session is dropped and the outcome is reported unknown.
   */
  async #sendAfter(begin: string, query: pg.QueryConfig): Promise<pg.QueryResult> {
    const stream = (this.client as unknown as ClientState).connection?.stream;
    stream?.cork();
    let opened: Promise<pg.QueryResult>;
    let ran: Promise<pg.QueryResult>;
    try {
      opened = this.client.query(begin);
      ran = this.client.query(query);
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
   * statements: the least recently used one is deallocated (a round trip, only once the bound is reached).
   * Undefined: run it unnamed.
   */
  async #nameFor(sql: string): Promise<string | undefined> {
    const names = this.names;
    const name = names?.nameOf(sql);
    if (names === undefined || name === undefined) return undefined;
    if (this.#prepared.delete(name)) {
      this.#prepared.set(name, true);
      return name;
    }
    const oldest = this.#prepared.size >= names.limit ? this.#prepared.keys().next().value : undefined;
    if (oldest !== undefined) {
      try {
        await this.client.query(`deallocate ${oldest}`);
      } catch (error) {
        // A name whose Parse failed was never prepared (26000): its place is free all the same. Whatever
        // else stopped it (a broken connection, an aborted transaction) meets the statement too.
        if (!isStalePreparedStatement(error)) return undefined;
      }
      this.#prepared.delete(oldest);
      this.#forget(oldest);
    }
    this.#prepared.set(name, true);
    return name;
  }

  /** node-postgres skips the Parse of a name it believes prepared: once deallocated, it must not. */
  #forget(name: string): void {
    const parsed = (this.client as unknown as ClientState).connection?.parsedStatements;
    if (parsed) delete parsed[name];
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
    return await this.client.query({ name, text: sql, values: parameters as unknown[] });
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    return toQueryResult<R>(await this.run(compiled.sql, compiled.parameters, { prepared: true }));
  }

  /** No repository streams; Kysely's interface asks for the method. */
  streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('Streaming queries are not supported by this PostgreSQL driver');
  }
}

function asConnection(connection: DatabaseConnection): PostgresConnection {
  if (!(connection instanceof PostgresConnection)) throw new Error('Not a connection of this driver');
  return connection;
}

class ResilientPostgresDriver implements Driver {
  #connections = new WeakMap<pg.PoolClient, PostgresConnection>();
  #destroyed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly names: StatementNames | undefined,
  ) {}

  init(): Promise<void> {
    return Promise.resolve();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw unavailableAsTroupeError(error);
    }
    let connection = this.#connections.get(client);
    if (!connection) {
      connection = new PostgresConnection(client, this.names);
      this.#connections.set(client, connection);
    }
    return connection;
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const isolation = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    const access = settings.accessMode ? ` ${settings.accessMode}` : '';
    const own = asConnection(connection);
    // Sent with the transaction's first statement (PostgresConnection.run): nothing to wait for here.
    own.inTransaction = true;
    own.unsentBegin = `begin${isolation}${access}`;
    return Promise.resolve();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const own = asConnection(connection);
    // A transaction that ran no statement never opened on the server: nothing to commit.
    if (own.unsentBegin !== undefined) {
      own.unsentBegin = undefined;
      own.inTransaction = false;
      return;
    }
    const result = await own
      .run('commit', [], { committing: true })
      .finally(() => (own.inTransaction = false));
    // PostgreSQL answers COMMIT with a ROLLBACK tag when an earlier statement left the transaction aborted.
    if (result.command === 'ROLLBACK') throw new Error('The transaction was rolled back by an earlier error');
  }

  /** A session that ended rolled its transaction back: a ROLLBACK that cannot be sent is not a failure. */
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const own = asConnection(connection);
    own.inTransaction = false;
    const opened = own.unsentBegin === undefined;
    own.unsentBegin = undefined;
    if (own.broken || !opened) return;
    try {
      await own.run('rollback', []);
    } catch {
      // Whatever failed the transaction is the error to report; this client is not reused.
      own.broken = true;
    }
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await asConnection(connection).run(`savepoint ${name}`, []);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await asConnection(connection).run(`rollback to savepoint ${name}`, []);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await asConnection(connection).run(`release savepoint ${name}`, []);
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    const own = asConnection(connection);
    // A client whose connection broke is destroyed, not handed to the next caller.
    own.client.release(own.broken || this.#destroyed);
    if (own.broken) this.#connections.delete(own.client);
    return Promise.resolve();
  }

  async destroy(): Promise<void> {
    if (this.#destroyed) return;
    this.#destroyed = true;
    await this.pool.end();
  }
}

/**
 * Every client of `pool` reports its connection errors to `onError` from its creation on, checked out or idle:
 * node-postgres emits 'error' on a client whose connection dies, and only idle clients have the pool's listener.
 */
export function listenToEveryClient(pool: pg.Pool, onError: (error: unknown) => void): void {
  pool.on('connect', (client) => client.on('error', onError));
}

/**
 * Kysely's PostgreSQL dialect over `pool`, with the resilient driver and an introspector of the search path's
 * schemas only (search-path-introspector.ts); `names` (statement-names.ts) turns on server-side prepared
 * statements.
 */
export function resilientPostgresDialect(pool: pg.Pool, names?: StatementNames): Dialect {
  return {
    createDriver: () => new ResilientPostgresDriver(pool, names),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createAdapter: () => new PostgresAdapter(),
    createIntrospector: (db: Kysely<unknown>) => new SearchPathIntrospector(db),
  };
}
