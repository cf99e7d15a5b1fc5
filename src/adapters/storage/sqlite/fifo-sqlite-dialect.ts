import { CompiledQuery, SqliteDialect } from 'kysely';
import type { DatabaseConnection, Driver, QueryCompiler, QueryResult, SqliteDialectConfig } from 'kysely';
import { busyAsTroupeError, isSqliteBusy } from './busy-error.js';

const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');
const RETRY_PAUSES_MS = [1, 2, 5, 10, 20, 50];

/** The connection, with SQLITE_BUSY past the busy timeout answered as `storage_busy` (see busy-error.ts). */
class BusyAwareConnection implements DatabaseConnection {
  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(query);
    } catch (error) {
      throw busyAsTroupeError(error);
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** Who holds or waits for the one connection: the direct path (`direct-query-runner.ts`) runs only when nobody does. */
export class ConnectionGate {
  pending = 0;
}

/**
 * Hands the single connection to waiters in arrival order. Kysely's own mutex wakes every waiter on each
 * release (they race and all but one wait again), which costs O(waiters) per query under a burst of
 * concurrent writes such as many runs streaming events at once.
 */
class FifoDriver implements Driver {
  #tail: Promise<void> = Promise.resolve();
  #release: (() => void) | undefined;
  #connection: BusyAwareConnection | undefined;

  constructor(
    private readonly inner: Driver,
    private readonly gate: ConnectionGate,
    /** How long a BEGIN keeps trying for the write lock, across attempts. */
    private readonly busyTimeoutMs: number,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    this.gate.pending += 1;
    const previous = this.#tail;
    let release: () => void = () => undefined;
    this.#tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      const inner = await this.inner.acquireConnection();
      if (this.#connection?.inner !== inner) this.#connection = new BusyAwareConnection(inner);
      const connection = this.#connection;
      this.#release = release;
      return connection;
    } catch (error) {
      this.gate.pending -= 1;
      release();
      throw error;
    }
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const release = this.#release;
    this.#release = undefined;
    try {
      await this.inner.releaseConnection(connection);
    } finally {
      this.gate.pending -= 1;
      release?.();
    }
  }

  /**
   * IMMEDIATE: the write lock is taken at BEGIN, where SQLite's busy handler waits for another writer (the
   * checkpoint worker restarting the WAL, a CLI command in another process). A deferred BEGIN takes it at the
   * first write, and a transaction that has read by then is refused at once with "database is locked": SQLite
   * does not wait on an upgrade from a read snapshot, since the other writer might be waiting for that reader.
   * This connection is the server's only writer and runs one transaction at a time, so nothing is serialized
   * that was not already.
   *
   * SQLite can still refuse the BEGIN before its busy timeout is spent: under sustained writes, a BEGIN that
   * met the checkpoint worker's RESTART failed with SQLITE_BUSY after 21–29 ms of a 5 s timeout (the HTTP
   * bench's API-only load, a few times per 3,000 requests), and the whole commit group failed with it. A
   * BEGIN that failed holds nothing, so it is tried again, after a pause that does not block the event loop,
   * until the busy timeout has passed.
   */
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // The driver's own connection: its SQLITE_BUSY is what decides a retry, and is answered only at the end.
    const raw = connection instanceof BusyAwareConnection ? connection.inner : connection;
    const deadline = performance.now() + this.busyTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        await raw.executeQuery(BEGIN_IMMEDIATE);
        return;
      } catch (error) {
        const pause = RETRY_PAUSES_MS[Math.min(attempt, RETRY_PAUSES_MS.length - 1)] ?? 0;
        if (!isSqliteBusy(error) || performance.now() + pause > deadline) throw busyAsTroupeError(error);
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.savepoint?.(connection, name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

export class FifoSqliteDialect extends SqliteDialect {
  constructor(
    config: SqliteDialectConfig,
    private readonly gate: ConnectionGate,
    private readonly busyTimeoutMs: number,
  ) {
    super(config);
  }

  override createDriver(): Driver {
    return new FifoDriver(super.createDriver(), this.gate, this.busyTimeoutMs);
  }
}
