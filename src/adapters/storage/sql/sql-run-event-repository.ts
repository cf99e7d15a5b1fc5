import { sql } from 'kysely';
import type { Selectable } from 'kysely';
import { storedRunEvent, type NewRunEvent, type RunEvent } from '../../../core/records/run-event.js';
import { ACTIVE_RUN_STATUSES } from '../../../core/records/run.js';
import type { RunEventBatch, RunEventRepository } from '../../../core/ports/storage.js';
import type { RunEventsTable } from './database-schema.js';
import { fromJson, nowIso, toJson, toNumber, translateUniqueViolation } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { writeNextInSequence } from './sql-sequence.js';
import { preparedQueryFamily } from './prepared-query.js';
import { selectByIds } from './select-by-ids.js';
import { sequenceBase, sequenceKey } from './sequence-base.js';

export function runEventFromRow(row: Selectable<RunEventsTable>): RunEvent {
  return storedRunEvent({
    run_id: row.run_id,
    seq: toNumber(row.seq),
    type: row.type,
    payload: fromJson<Record<string, unknown>>(row.payload),
    created_at: row.created_at,
  });
}

/** Shapes with up to this many events per run, and two runs, stay compiled; larger ones compile each time. */
const PREPARED_BATCH_SIZES = 8;
const PREPARED_RUNS = 2;

interface BatchShape {
  size: number;
  whileActive: boolean;
}

/**
 * Event i of run b's batch (both from 0 and 1) takes that run's last seq + i, from the CTE `base{b}`
 * (sequence-base.ts: the table's highest seq on SQLite, the run's counter bumped in this statement on
 * PostgreSQL). SQLite computes every row of a statement that reads the table it inserts into first (a
 * temporary table), PostgreSQL reads the snapshot before the statement, so no row sees another. A guarded
 * run's base is empty while the run is not active, so none of its events is written and no number is taken.
 */
const insertBatches = preparedQueryFamily({
  key: (shape: readonly BatchShape[]) =>
    shape.map(({ size, whileActive }) => `${size}${whileActive ? 'g' : ''}`).join(','),
  keep: (shape) => shape.length <= PREPARED_RUNS && shape.every(({ size }) => size <= PREPARED_BATCH_SIZES),
  build: (shape) => (_db, args: Record<string, string>, dialect) => {
    const active = sql.join(ACTIVE_RUN_STATUSES.map((status) => sql.lit(status)));
    const bases = shape.map(({ size, whileActive }, b) =>
      sequenceBase(dialect, {
        name: `base${b}`,
        table: 'run_events',
        owner: args[`run${b}`],
        key: args[`key${b}`],
        size,
        ...(whileActive
          ? {
              only: sql`EXISTS (SELECT 1 FROM runs WHERE runs.id = ${args[`run${b}`]} AND runs.status IN (${active}))`,
            }
          : {}),
      }),
    );
    const values = shape.flatMap(({ size }, b) =>
      Array.from(
        { length: size },
        (_, i) =>
          sql`(${sql.lit(b)}, ${sql.lit(i + 1)}, ${args[`type${b}_${i}`]}, ${args[`payload${b}_${i}`]})`,
      ),
    );
    // The run id is cast: PostgreSQL types an untyped parameter in a UNION as text, SQLite needs nothing.
    const owners = shape.map(
      (_, b) =>
        sql`SELECT ${sql.lit(b)} AS b, CAST(${args[`run${b}`]} AS TEXT) AS run_id, last_seq FROM ${sql.raw(`base${b}`)}`,
    );
    return sql<{ run_id: string; seq: number | string }>`
      WITH ${sql.join(bases)},
        batch (b, n, type, payload) AS (VALUES ${sql.join(values)}),
        batch_run AS (${sql.join(owners, sql` UNION ALL `)})
      INSERT INTO run_events (run_id, seq, type, payload, created_at)
      SELECT batch_run.run_id, batch_run.last_seq + batch.n, batch.type, batch.payload, ${args.createdAt}
      FROM batch_run JOIN batch ON batch.b = batch_run.b
      RETURNING run_id, seq`;
  },
});

export class SqlRunEventRepository implements RunEventRepository {
  constructor(private readonly ctx: SqlContext) {}

  /**
   * The hot path. One statement takes each run's next numbers (sequence-base.ts) and inserts the events,
   * so numbers stay gapless, with no transaction or lock of its own on either engine.
   */
  async append(event: NewRunEvent): Promise<RunEvent> {
    const [appended] = await this.appendMany(event.run_id, [event]);
    if (!appended) throw new Error(`run_events insert for ${event.run_id} returned no row`);
    return appended;
  }

  async appendMany(runId: string, events: Omit<NewRunEvent, 'run_id'>[]): Promise<RunEvent[]> {
    const [appended = []] = await this.appendBatches([{ run_id: runId, events }]);
    if (appended.length !== events.length)
      throw new Error(`run_events insert for ${runId} returned ${appended.length} of ${events.length} rows`);
    return appended;
  }

  async appendBatches(batches: readonly RunEventBatch[]): Promise<RunEvent[][]> {
    const parts = batches.filter((batch) => batch.events.length > 0);
    if (parts.length === 0) return batches.map(() => []);
    if (new Set(parts.map((batch) => batch.run_id)).size !== parts.length) {
      throw new Error('appendBatches takes each run at most once');
    }
    const createdAt = nowIso(this.ctx);
    const args: Record<string, string> = { createdAt };
    const rows = parts.map((batch, b) => {
      args[`run${b}`] = batch.run_id;
      args[`key${b}`] = sequenceKey('run_events', batch.run_id);
      return batch.events.map((event, i) => {
        const row = { type: event.type, payload: toJson(event.payload) };
        args[`type${b}_${i}`] = row.type;
        args[`payload${b}_${i}`] = row.payload;
        return row;
      });
    });
    const shape = parts.map((batch) => ({
      size: batch.events.length,
      whileActive: batch.whileActive === true,
    }));
    try {
      const result = await writeNextInSequence(this.ctx, 'run_events_run_seq_uq', (ctx) =>
        insertBatches(shape)(ctx, args),
      );
      // RETURNING has no guaranteed order; a run's seqs are consecutive, so sorted they follow its batch.
      const seqs = new Map<string, number[]>();
      for (const row of result.rows) {
        const list = seqs.get(row.run_id) ?? [];
        list.push(toNumber(row.seq));
        seqs.set(row.run_id, list);
      }
      const appended = parts.map((batch, b) => {
        const numbers = (seqs.get(batch.run_id) ?? []).sort((x, y) => x - y);
        // Re-parsed from the stored text so the caller sees exactly what a reader will (e.g. no undefined keys).
        return (rows[b] ?? []).slice(0, numbers.length).map((row, i) =>
          storedRunEvent({
            run_id: batch.run_id,
            seq: numbers[i] ?? 0,
            type: row.type,
            payload: fromJson<Record<string, unknown>>(row.payload),
            created_at: createdAt,
          }),
        );
      });
      return batches.map((batch) => (batch.events.length === 0 ? [] : (appended.shift() ?? [])));
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

  async listOfTypes(runId: string, types: readonly RunEvent['type'][]): Promise<RunEvent[]> {
    if (types.length === 0) return [];
    const rows = await this.ctx.db
      .selectFrom('run_events')
      .selectAll()
      .where('run_id', '=', runId)
      .where('type', 'in', types)
      .orderBy('seq')
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

  async listLatest(runIds: readonly string[], perRun: number): Promise<RunEvent[]> {
    if (perRun <= 0) return [];
    // Each run's window starts past its own highest seq minus perRun. Correlated to the run, not to the
    // event, the MAX is read once per run from the (run_id, seq) index's last entry and bounds that index's
    // range: a long stream costs its window only.
    const rows = await selectByIds(runIds, (chunk) =>
      this.ctx.db
        .selectFrom('runs as r')
        .innerJoin('run_events as e', (join) =>
          join.onRef('e.run_id', '=', 'r.id').on((eb) =>
            eb(
              'e.seq',
              '>',
              eb(
                eb
                  .selectFrom('run_events as m')
                  .select((inner) => inner.fn.max('m.seq').as('last_seq'))
                  .whereRef('m.run_id', '=', 'r.id'),
                '-',
                perRun,
              ),
            ),
          ),
        )
        .selectAll('e')
        .where('r.id', 'in', chunk)
        .orderBy('e.run_id')
        .orderBy('e.seq')
        .execute(),
    );
    return rows.map(runEventFromRow);
  }
}
