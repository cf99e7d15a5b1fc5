import { CompiledQuery, SqliteDialect } from 'kysely';
import type { DatabaseConnection, Driver, QueryCompiler, QueryResult, SqliteDialectConfig } from 'kysely';
import { beginImmediate } from './begin-immediate.js';
import { busyAsTroupeError } from './busy-error.js';
import type { ConnectionGate } from './connection-gate.js';

const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');

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

/**
 * Hands the single connection to waiters in arrival order, through the gate the direct paths share. Kysely's
 * own mutex wakes every waiter on each release (they race and all but one wait again), which costs
 * O(waiters) per query under a burst of concurrent writes such as many runs streaming events at once.
 */
class FifoDriver implements Driver {
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
    const release = this.gate.tryHold() ?? (await this.gate.hold());
    try {
      const inner = await this.inner.acquireConnection();
      if (this.#connection?.inner !== inner) this.#connection = new BusyAwareConnection(inner);
      const connection = this.#connection;
      this.#release = release;
      return connection;
    } catch (error) {
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
      release?.();
    }
  }

  /** See `beginImmediate`: SQLITE_BUSY is retried until the busy timeout, then answered as `storage_busy`. */
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // The driver's own connection: its SQLITE_BUSY is what decides a retry, and is answered only at the end.
    const raw = connection instanceof BusyAwareConnection ? connection.inner : connection;
    await beginImmediate(() => raw.executeQuery(BEGIN_IMMEDIATE), this.busyTimeoutMs);
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
