import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { NewRunEvent, RunEvent } from '../../../core/records/run-event.js';
import { ACTIVE_RUN_STATUSES } from '../../../core/records/run.js';
import type { RunEventRepository } from '../../../core/ports/storage.js';
import type { RunEventsTable } from './database-schema.js';
import { fromJson, nowIso, toJson, toNumber, translateUniqueViolation } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { writeNextInSequence } from './sql-sequence.js';
import { preparedQueryFamily } from './prepared-query.js';

export function runEventFromRow(row: Selectable<RunEventsTable>): RunEvent {
  return {
    run_id: row.run_id,
    seq: toNumber(row.seq),
    type: row.type,
    payload: fromJson<Record<string, unknown>>(row.payload),
    created_at: row.created_at,
  };
}

/** Batches up to this size stay compiled; a larger one (a step with many tool calls) compiles each time. */
const PREPARED_BATCH_SIZES = 8;

/**
 * Event i of a batch (from 1) takes the run's highest seq + i, read in a subquery: an aggregate over no rows
 * still yields one row, so the only-while-active guard must filter after it, never inside it.
 */
const insertBatch = preparedQueryFamily({
  key: ({ size, whileActive }: { size: number; whileActive: boolean }) => `${size}:${whileActive}`,
  keep: ({ size }) => size <= PREPARED_BATCH_SIZES,
  build:
    ({ size, whileActive }) =>
    (_db, args: Record<string, string>) => {
      const values = Array.from(
        { length: size },
        (_, index) => sql`(${sql.lit(index + 1)}, ${args[`type${index}`]}, ${args[`payload${index}`]})`,
      );
      const guard = whileActive
        ? sql`WHERE EXISTS (SELECT 1 FROM runs WHERE id = ${args.runId} AND status IN (${sql.join(ACTIVE_RUN_STATUSES.map((status) => sql.lit(status)))}))`
        : sql``;
      return sql<{ seq: number | string }>`
        WITH batch (n, type, payload) AS (VALUES ${sql.join(values)})
        INSERT INTO run_events (run_id, seq, type, payload, created_at)
        SELECT ${args.runId}, last.seq + batch.n, batch.type, batch.payload, ${args.createdAt}
        FROM (SELECT COALESCE(MAX(seq), 0) AS seq FROM run_events WHERE run_id = ${args.runId}) AS last
        CROSS JOIN batch
        ${guard}
        RETURNING seq`;
    },
});

export class SqlRunEventRepository implements RunEventRepository {
  constructor(private readonly ctx: SqlContext) {}

  /**
   * The hot path. One statement reads the run's highest `seq` through the (run_id, seq) index and inserts
   * the next ones, so numbers stay gapless; see writeNextInSequence for concurrent writers.
   */
  async append(event: NewRunEvent): Promise<RunEvent> {
    const [appended] = await this.insertNext(event.run_id, [event], false);
    if (!appended) throw new Error(`run_events insert for ${event.run_id} returned no row`);
    return appended;
  }

  async appendMany(runId: string, events: Omit<NewRunEvent, 'run_id'>[]): Promise<RunEvent[]> {
    if (events.length === 0) return [];
    const appended = await this.insertNext(runId, events, false);
    if (appended.length !== events.length)
      throw new Error(`run_events insert for ${runId} returned ${appended.length} of ${events.length} rows`);
    return appended;
  }

  async appendWhileActive(event: NewRunEvent): Promise<RunEvent | undefined> {
    const [appended] = await this.insertNext(event.run_id, [event], true);
    return appended;
  }

  private async insertNext(
    runId: string,
    events: Omit<NewRunEvent, 'run_id'>[],
    whileActive: boolean,
  ): Promise<RunEvent[]> {
    const rows = events.map((event) => ({ type: event.type, payload: toJson(event.payload) }));
    const createdAt = nowIso(this.ctx);
    const args: Record<string, string> = { runId, createdAt };
    rows.forEach((row, index) => {
      args[`type${index}`] = row.type;
      args[`payload${index}`] = row.payload;
    });
    try {
      const result = await writeNextInSequence(
        this.ctx,
        'run_events_run_seq_uq',
        `run_events:${runId}`,
        (db) => insertBatch({ size: rows.length, whileActive })({ ...this.ctx, db }, args),
      );
      // RETURNING has no guaranteed order; the seqs are consecutive, so sorted they follow the batch order.
      const seqs = result.rows.map((row) => toNumber(row.seq)).sort((a, b) => a - b);
      // Re-parsed from the stored text so the caller sees exactly what a reader will (e.g. no undefined keys).
      return rows.slice(0, seqs.length).map((row, index) => ({
        run_id: runId,
        seq: seqs[index] ?? 0,
        type: row.type,
        payload: fromJson(row.payload),
        created_at: createdAt,
      }));
    } catch (error) {
      return translateUniqueViolation(this.ctx, error, {});
    }
  }

  async list(runId: string, afterSeq: number, limit: number): Promise<RunEvent[]> {
    if (limit <= 0) return [];
    const rows = await this.ctx.db
      .selectFrom('run_events')
      .selectAll()
      .where('run_id', '=', runId)
      .where('seq', '>', afterSeq)
      .orderBy('seq')
      .limit(limit)
      .execute();
    return rows.map(runEventFromRow);
  }

  async lastSeq(runId: string): Promise<number> {
    const row = await this.ctx.db
      .selectFrom('run_events')
      .select((eb) => eb.fn.max('seq').as('last_seq'))
      .where('run_id', '=', runId)
      .executeTakeFirst();
    return toNumber(row?.last_seq, 0);
  }
}
