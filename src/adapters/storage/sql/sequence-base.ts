import { sql, type RawBuilder } from 'kysely';
import type { SqlDialect } from './sql-dialect.js';

/** The per-key sequences of the schema: the table, the column that owns a sequence, and the key's prefix. */
const SEQUENCES = {
  run_events: 'run_id',
  thread_messages: 'thread_id',
  run_inbox: 'run_id',
} as const;

export type SequenceTable = keyof typeof SEQUENCES;

export interface SequenceBaseOptions {
  /** The CTE's name; it yields one column, `last_seq`, in one row (none when `only` is false). */
  name: string;
  table: SequenceTable;
  /** The sequence's owner (a run id, a thread id): a parameter. */
  owner: unknown;
  /** `sequenceKey(table, owner)`, passed as a parameter of its own (PostgreSQL only). */
  key: unknown;
  /** How many numbers the write takes. */
  size: number;
  /** A condition the write needs (a run still active): when false, no number is taken and the CTE is empty. */
  only?: RawBuilder<unknown>;
}

/** The counter row's key of `owner`'s sequence in `table` (sequence-counters-migration.ts). */
export function sequenceKey(table: SequenceTable, owner: string): string {
  return `${table}:${owner}`;
}

/**
 * A CTE with the highest number taken so far in one sequence, for a write that takes the next `size`
 * (its rows get last_seq + 1 … last_seq + size). On SQLite, which runs one write at a time, that is the
 * table's highest `seq`. On PostgreSQL it is the key's counter, bumped by `size` in the same statement (an
 * upsert whose row lock serialises concurrent writers of the key until their transaction ends, and whose
 * DO UPDATE reads the newest committed value, not the statement's snapshot), so a write needs no transaction
 * and no lock of its own: one round trip (docs/scale-out.md#what-scales-how). A key without a counter row
 * starts from the table's highest `seq`, and a counter behind it (rows written by a version before the
 * counters) catches up, so no backfill is needed.
 */
export function sequenceBase(dialect: SqlDialect, options: SequenceBaseOptions): RawBuilder<unknown> {
  const { name, table, owner, key, size, only } = options;
  const column = SEQUENCES[table];
  const highest = sql`(SELECT COALESCE(MAX(seq), 0) FROM ${sql.table(table)} WHERE ${sql.ref(column)} = ${owner})`;
  const where = only ? sql` WHERE ${only}` : sql``;
  if (dialect.name !== 'postgres') return sql`${sql.raw(name)} AS (SELECT ${highest} AS last_seq${where})`;
  const step = sql.lit(size);
  return sql`${sql.raw(name)} AS (
    INSERT INTO sequence_counters AS c (key, last_value)
    SELECT CAST(${key} AS TEXT), ${highest} + ${step}${where}
    ON CONFLICT (key) DO UPDATE SET last_value = GREATEST(c.last_value, EXCLUDED.last_value - ${step}) + ${step}
    RETURNING last_value - ${step} AS last_seq)`;
}
