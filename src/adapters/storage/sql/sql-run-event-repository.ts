import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import type { NewRunEvent, RunEvent } from '../../../core/records/run-event.js';
import { ACTIVE_RUN_STATUSES } from '../../../core/records/run.js';
import type { RunEventRepository } from '../../../core/ports/storage.js';
import type { RunEventsTable } from './database-schema.js';
import { fromJson, nowIso, toJson, toNumber, translateUniqueViolation } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { writeNextInSequence } from './sql-sequence.js';

export function runEventFromRow(row: Selectable<RunEventsTable>): RunEvent {
  return {
    run_id: row.run_id,
    seq: toNumber(row.seq),
    type: row.type,
    payload: fromJson<Record<string, unknown>>(row.payload),
    created_at: row.created_at,
  };
}

export class SqlRunEventRepository implements RunEventRepository {
  constructor(private readonly ctx: SqlContext) {}

  /**
   * The hot path. One statement reads the run's highest `seq` through the (run_id, seq) index and inserts
   * the next one, so numbers stay gapless; see writeNextInSequence for concurrent writers.
   */
  async append(event: NewRunEvent): Promise<RunEvent> {
    const appended = await this.insertNext(event, false);
    if (!appended) throw new Error(`run_events insert for ${event.run_id} returned no row`);
    return appended;
  }

  appendWhileActive(event: NewRunEvent): Promise<RunEvent | undefined> {
    return this.insertNext(event, true);
  }

  private async insertNext(event: NewRunEvent, whileActive: boolean): Promise<RunEvent | undefined> {
    const payload = toJson(event.payload);
    const createdAt = nowIso(this.ctx);
    // The next seq is read in a subquery: an aggregate over no rows still yields one row, so the
    // only-while-active guard must filter after it, never inside it.
    const guard = whileActive
      ? sql`WHERE EXISTS (SELECT 1 FROM runs WHERE id = ${event.run_id} AND status IN (${sql.join([...ACTIVE_RUN_STATUSES])}))`
      : sql``;
    const query = sql<{ seq: number | string }>`
      INSERT INTO run_events (run_id, seq, type, payload, created_at)
      SELECT ${event.run_id}, next_seq.seq, ${event.type}, ${payload}, ${createdAt}
      FROM (SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM run_events WHERE run_id = ${event.run_id}) AS next_seq
      ${guard}
      RETURNING seq`;
    try {
      const { rows } = await writeNextInSequence(
        this.ctx,
        'run_events_run_seq_uq',
        `run_events:${event.run_id}`,
        (db) => query.execute(db),
      );
      const row = rows[0];
      if (row === undefined) return undefined;
      // Re-parsed from the stored text so the caller sees exactly what a reader will (e.g. no undefined keys).
      return {
        run_id: event.run_id,
        seq: toNumber(row.seq),
        type: event.type,
        payload: fromJson(payload),
        created_at: createdAt,
      };
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
