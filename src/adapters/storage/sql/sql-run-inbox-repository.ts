import { sql } from 'kysely';
import type { RunInboxRepository } from '../../../core/ports/storage.js';
import { atomically, nowIso } from './sql-context.js';
import type { SqlContext } from './sql-context.js';
import { writeNextInSequence } from './sql-sequence.js';

export class SqlRunInboxRepository implements RunInboxRepository {
  constructor(private readonly ctx: SqlContext) {}

  async push(runId: string, message: string): Promise<void> {
    const createdAt = nowIso(this.ctx);
    // A per-run sequence keeps the send order exact even for messages sent within one millisecond.
    await writeNextInSequence(this.ctx, 'run_inbox_run_seq_uq', `run_inbox:${runId}`, (db) =>
      sql`
        INSERT INTO run_inbox (run_id, seq, message, created_at, read_at)
        SELECT ${runId}, COALESCE(MAX(seq), 0) + 1, ${message}, ${createdAt}, NULL
        FROM run_inbox WHERE run_id = ${runId}`.execute(db),
    );
  }

  take(runId: string): Promise<string[]> {
    const readAt = nowIso(this.ctx);
    return atomically(this.ctx, async (db) => {
      const rows = await db
        .updateTable('run_inbox')
        .set({ read_at: readAt })
        .where('run_id', '=', runId)
        .where('read_at', 'is', null)
        .returning(['seq', 'message'])
        .execute();
      return rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map((row) => row.message);
    });
  }
}
