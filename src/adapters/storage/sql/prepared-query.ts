import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { DatabaseSchema } from './database-schema.js';
import type { SqlContext } from './sql-context.js';
import type { SqlDialect } from './sql-dialect.js';

const MARKER = '\u0000troupe-argument:';

interface Plan {
  compiled: CompiledQuery;
  /** For each parameter of the compiled SQL, the argument that fills it. */
  slots: string[];
}

export type PreparedQuery<A, R> = (ctx: SqlContext, args: A) => Promise<QueryResult<R>>;

/** A query builder or an `sql` template: both compile against the database they will run on. */
interface Buildable<R> {
  compile(db: Kysely<DatabaseSchema>): CompiledQuery<R>;
}

function plan(compiled: CompiledQuery): Plan {
  if (compiled.sql.includes(MARKER)) {
    throw new Error(`A prepared query inlines an argument into its SQL: ${compiled.sql}`);
  }
  const slots = compiled.parameters.map((parameter, index) => {
    if (typeof parameter !== 'string' || !parameter.startsWith(MARKER)) {
      throw new Error(
        `Parameter ${index + 1} of a prepared query is not one of its arguments (pass it as one, or a constant as sql.lit): ${compiled.sql}`,
      );
    }
    return parameter.slice(MARKER.length);
  });
  return { compiled, slots };
}

/**
 * A hot query compiled once per SQL engine. Kysely builds an operation tree and compiles it on every call,
 * 7–25 µs for the queries of a run's hot path, about what SQLite takes to run them. A hot query's SQL
 * depends only on its shape, so it is compiled once with markers in place of its arguments and run
 * afterwards with the caller's values put where the markers were.
 *
 * Every parameter must come from `args`: a value captured from elsewhere would be frozen into the first
 * compile, so the compile refuses it (constants go in as `sql.lit`). Arguments are scalars: one marker is
 * one parameter.
 */
export function preparedQuery<A extends Record<string, unknown>, R>(
  /** `dialect`: for the few queries whose SQL differs by engine beyond what Kysely compiles. */
  build: (db: Kysely<DatabaseSchema>, args: A, dialect: SqlDialect) => Buildable<R>,
): PreparedQuery<A, R> {
  const plans = new WeakMap<SqlDialect, Plan>();
  const markers = new Proxy({} as A, { get: (_target, name) => `${MARKER}${String(name)}` });
  return async (ctx, args) => {
    let known = plans.get(ctx.dialect);
    if (known === undefined) {
      known = plan(build(ctx.db, markers, ctx.dialect).compile(ctx.db));
      plans.set(ctx.dialect, known);
    }
    const parameters = known.slots.map((name) => args[name]);
    const now = ctx.direct?.run<R>(known.compiled, parameters, ctx.inTransaction);
    return now ?? ctx.db.executeQuery<R>({ ...known.compiled, parameters });
  };
}

export interface PreparedQueryFamily<S, A, R> {
  /** The shape's cache key: equal keys must build equal SQL. */
  key(shape: S): string;
  build(shape: S): (db: Kysely<DatabaseSchema>, args: A, dialect: SqlDialect) => Buildable<R>;
  /** Whether a shape's query is kept (default: all); one not kept is compiled on each call, so rare large shapes do not grow the cache. */
  keep?(shape: S): boolean;
}

/**
 * Queries whose SQL depends on a small shape (a batch size, which columns an update sets): one prepared query
 * per shape, made on first use.
 */
export function preparedQueryFamily<S, A extends Record<string, unknown>, R>(
  family: PreparedQueryFamily<S, A, R>,
): (shape: S) => PreparedQuery<A, R> {
  const known = new Map<string, PreparedQuery<A, R>>();
  return (shape) => {
    const key = family.key(shape);
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    const query = preparedQuery(family.build(shape));
    if (family.keep?.(shape) ?? true) known.set(key, query);
    return query;
  };
}
