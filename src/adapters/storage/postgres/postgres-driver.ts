import {
  PostgresAdapter,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { PostgresConnection } from './postgres-connection.js';
import { SearchPathIntrospector } from './search-path-introspector.js';
import type { StatementNames } from './statement-names.js';
import { unavailableAsTroupeError } from './storage-unavailable.js';

/*
 * Kysely's PostgreSQL driver, written for a server that restarts (docs/scale-out.md, "Outages"): a failure of
 * the connection is `storage_unavailable` wherever it surfaces (acquiring a client, any statement, the COMMIT),
 * and a client whose connection broke is dropped from the pool, which opens new ones as they are needed.
 * Every client gets its 'error' listener when the pool creates it (`listenToEveryClient`), so a connection that
 * dies while a query runs on it can no longer crash the process.
 */

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

/** The dialect, with the one driver every Kysely over it uses (pipelined-transactions.ts opens transactions on it). */
export interface ResilientPostgresDialect extends Dialect {
  readonly driver: Driver;
}

/**
 * Kysely's PostgreSQL dialect over `pool`, with the resilient driver and an introspector of the search path's
 * schemas only (search-path-introspector.ts); `names` (statement-names.ts) turns on server-side prepared
 * statements.
 */
export function resilientPostgresDialect(pool: pg.Pool, names?: StatementNames): ResilientPostgresDialect {
  const driver = new ResilientPostgresDriver(pool, names);
  return {
    driver,
    createDriver: () => driver,
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createAdapter: () => new PostgresAdapter(),
    createIntrospector: (db: Kysely<unknown>) => new SearchPathIntrospector(db),
  };
}
