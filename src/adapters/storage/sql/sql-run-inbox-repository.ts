import { sql } from 'kysely';
import type { RunInboxRepository } from '../../../core/ports/storage.js';
import { nowIso } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { writeNextInSequence } from './sql-sequence.js';
import { preparedQuery } from './prepared-query.js';
import { sequenceBase, sequenceKey } from './sequence-base.js';

const takeUnread = preparedQuery((db, args: { runId: string; readAt: string }) =>
  db
    .updateTable('run_inbox')
    .set({ read_at: args.readAt })
    .where('run_id', '=', args.runId)
    .where('read_at', 'is', null)
    .returning(['seq', 'message']),
);

const anyUnread = preparedQuery((db, args: { runId: string }) =>
  db
    .selectFrom('run_inbox')
    .select('seq')
    .where('run_id', '=', args.runId)
    .where('read_at', 'is', null)
    .limit(sql.lit(1)),
);

export class SqlRunInboxRepository implements RunInboxRepository {
  constructor(private readonly ctx: SqlContext) {}

  async push(runId: string, message: string): Promise<void> {
    const createdAt = nowIso(this.ctx);
    // A per-run sequence keeps the send order exact even for messages sent within one millisecond.
    const base = sequenceBase(this.ctx.dialect, {
      name: 'base',
      table: 'run_inbox',
      owner: runId,
      key: sequenceKey('run_inbox', runId),
      size: 1,
    });
    await writeNextInSequence(this.ctx, 'run_inbox_run_seq_uq', (ctx) =>
      sql`
        WITH ${base}
        INSERT INTO run_inbox (run_id, seq, message, created_at, read_at)
        SELECT ${runId}, base.last_seq + 1, ${message}, ${createdAt}, NULL FROM base`.execute(ctx.db),
    );
  }

  async take(runId: string): Promise<string[]> {
    // One UPDATE … RETURNING is atomic on both engines: no transaction of its own. It runs before every step
    // and finds nothing almost always, so a read looks first: on SQLite an UPDATE, even of no row, is a write
    // transaction. A message pushed after the read is taken before the next step, as if it came a moment later.
    if ((await anyUnread(this.ctx, { runId })).rows.length === 0) return [];
    const { rows } = await takeUnread(this.ctx, { runId, readAt: nowIso(this.ctx) });
    return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map((row) => row.message);
  }
}
