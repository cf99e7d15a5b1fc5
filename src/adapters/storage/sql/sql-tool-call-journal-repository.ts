import type { ToolCallJournalRepository } from '../../../core/ports/storage.js';
import { nowIso } from './sql-context.js';
import type { SqlContext } from './sql-context.js';

export class SqlToolCallJournalRepository implements ToolCallJournalRepository {
  constructor(private readonly ctx: SqlContext) {}

  async markStarted(runId: string, toolCallId: string): Promise<void> {
    // A call made again after a storage outage marks itself again: the first mark stands.
    await this.ctx.db
      .insertInto('tool_call_starts')
      .values({ run_id: runId, tool_call_id: toolCallId, started_at: nowIso(this.ctx) })
      .onConflict((oc) => oc.columns(['run_id', 'tool_call_id']).doNothing())
      .execute();
  }

  async startedAmong(runId: string, toolCallIds: readonly string[]): Promise<Set<string>> {
    if (toolCallIds.length === 0) return new Set();
    const rows = await this.ctx.db
      .selectFrom('tool_call_starts')
      .select('tool_call_id')
      .where('run_id', '=', runId)
      .where('tool_call_id', 'in', [...toolCallIds])
      .execute();
    return new Set(rows.map((row) => row.tool_call_id));
  }
}
