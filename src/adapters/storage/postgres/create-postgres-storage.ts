import { Kysely } from 'kysely';
import pg from 'pg';
import type { Clock } from '../../../core/clock.js';
import { TroupeError } from '../../../core/errors.js';
import type { Storage } from '../../../core/ports/storage.js';
import { redactUrl } from '../../../core/redact-url.js';
import { createSqlStorage } from '../sql/create-sql-storage.js';
import type { DatabaseSchema } from '../sql/database-schema.js';
import { migrateToLatest } from '../sql/migrations.js';
import { postgresSqlDialect } from '../sql/sql-dialect.js';
import { listenToEveryClient, resilientPostgresDialect } from './postgres-driver.js';
import { pipelinedPostgresTransactions } from './pipelined-transactions.js';
import { StatementNames } from './statement-names.js';

export interface PostgresStorageOptions {
  /** `postgres://user:password@host:port/database`, as node-postgres accepts it. */
  connectionString: string;
  /**
   * Keeps every Troupe table in this schema (created when missing) instead of the connection's default
   * one, so several Troupe installations, or test cases, can share one database. A plain lowercase
   * identifier.
   */
  schema?: string;
  clock?: Clock;
  /** Connections in the pool; at least 2 (migrations hold one for their lock). Default 10. */
  poolSize?: number;
  /**
   * Server-side prepared statements for the repositories' statements (statement-names.ts); default true. Off
   * for a pooler between Troupe and PostgreSQL that does not keep them per client (PgBouncer in transaction
   * mode before 1.21, or without `max_prepared_statements`).
   */
  preparedStatements?: boolean;
  /**
   * Told about every connection failure (a pooled connection the server dropped, idle or in use). The
   * statements it broke fail with `storage_unavailable`; the pool opens new connections as they are needed.
   */
  onError?: (error: unknown) => void;
}

const DEFAULT_POOL_SIZE = 10;
/**
 * Prepared statements per connection at most. The hot path of a run uses a few dozen; past the bound a
 * connection deallocates its least recently used statement (statement-names.ts).
 */
const PREPARED_STATEMENT_LIMIT = 200;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
/** Bounds how long opening the store waits for a connection, so a wrong URL fails instead of hanging. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Network errors, and the SQLSTATEs of a refused login or a missing database or schema. */
const CONNECTION_FAILURE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  '28000',
  '28P01',
  '3D000',
  '3F000',
  '42501',
]);

function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && CONNECTION_FAILURE_CODES.has(code)) return true;
  // node-postgres reports its own connect timeout without a code.
  return typeof message === 'string' && /timeout|terminated/i.test(message);
}

function validate(options: PostgresStorageOptions): { schema: string | undefined; poolSize: number } {
  const { schema } = options;
  if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
    throw new TroupeError(
      'config_invalid',
      `PostgreSQL schema "${schema}" must be a lowercase identifier (letters, digits, underscores)`,
    );
  }
  const poolSize = options.poolSize ?? DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || poolSize < 2) {
    throw new TroupeError(
      'config_invalid',
      `PostgreSQL pool size must be an integer of at least 2, got ${poolSize}`,
    );
  }
  return { schema, poolSize };
}

/**
 * Migrates under a session advisory lock, so processes that start together (an API process and its
 * workers) take turns: Kysely's own migration lock lives in a table that the first process is still
 * creating, and concurrent `CREATE TABLE IF NOT EXISTS` / `CREATE SCHEMA` can fail on PostgreSQL.
 * The lock is held on a dedicated pooled connection while the migrator uses the others.
 */
async function migrateExclusively(
  pool: pg.Pool,
  db: Kysely<DatabaseSchema>,
  schema: string | undefined,
): Promise<void> {
  const client = await pool.connect();
  try {
    const lockKey = `troupe:migrate:${schema ?? ''}`;
    await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [lockKey]);
    try {
      if (schema !== undefined) {
        // Checked first: CREATE SCHEMA IF NOT EXISTS needs the CREATE privilege even when the schema exists.
        const existing = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
        if (existing.rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      }
      const current = await client.query<{ schema: string | null }>('SELECT current_schema() AS schema');
      const tableSchema = schema ?? current.rows[0]?.schema ?? undefined;
      if (tableSchema === undefined || tableSchema === null) {
        throw new TroupeError(
          'config_invalid',
          'PostgreSQL has no current schema for this connection (check search_path, or set a schema)',
        );
      }
      // Naming the schema keeps Kysely from finding another Troupe schema's bookkeeping tables.
      await migrateToLatest(db, { migrationTableSchema: tableSchema });
    } finally {
      await client
        .query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [lockKey])
        .catch(() => undefined);
    }
  } finally {
    client.release();
  }
}

/**
 * The startup parameters of every pooled connection, so each has them from its first query on: the schema, and
 * no JIT. JIT compiles a statement whose estimated cost passes `jit_above_cost`, at every execution (tens of ms);
 * a generic plan on a table that grew since its last ANALYZE can be estimated that high however small its work
 * (a worker joining such a cluster paid 43 ms per run end until autovacuum analysed `runs`: docs/scale-out.md,
 * "No JIT"). Troupe's statements are short: JIT can only cost them.
 */
export function startupOptions(schema: string | undefined): string {
  return [...(schema === undefined ? [] : [`-c search_path=${schema}`]), '-c jit=off'].join(' ');
}

/**
 * The scale-out store: PostgreSQL through a node-postgres pool, with the same Kysely repositories and
 * migrations as SQLite. Migrates to the latest schema on open.
 */
export async function createPostgresStorage(options: PostgresStorageOptions): Promise<Storage> {
  const { schema, poolSize } = validate(options);
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: 'troupe',
    // A statement is written without waiting for the answer of the one before it (a transaction's BEGIN
    // leaves with its first statement: postgres-driver.ts); each still gets its own result or error.
    pipeline: true,
    options: startupOptions(schema),
  });
  const report = (error: unknown): void => {
    try {
      options.onError?.(error);
    } catch {
      // The reporter is the last resort; there is nowhere left to send its own failure.
    }
  };
  // Every client reports its own failure, in use or idle; the pool re-emits an idle one's, already reported.
  listenToEveryClient(pool, report);
  pool.on('error', () => undefined);
  const names =
    options.preparedStatements === false ? undefined : new StatementNames(PREPARED_STATEMENT_LIMIT);
  const dialect = resilientPostgresDialect(pool, names);
  const db = new Kysely<DatabaseSchema>({ dialect });
  try {
    // A migration's statements run once each, so none is prepared (a text is named from its second use).
    await migrateExclusively(pool, db, schema);
  } catch (error) {
    await db.destroy().catch(() => undefined);
    if (error instanceof TroupeError) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new TroupeError(
      isConnectionFailure(error) ? 'config_invalid' : 'internal',
      `Cannot open PostgreSQL at ${redactUrl(options.connectionString, 'connection string')}: ${reason}`,
      { cause: error },
    );
  }
  return createSqlStorage(db, postgresSqlDialect, {
    transactions: pipelinedPostgresTransactions(db, dialect),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
}
