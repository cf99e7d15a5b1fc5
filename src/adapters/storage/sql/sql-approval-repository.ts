import type { Selectable } from 'kysely';
import type { ApprovalRepository, NewToolApproval } from '../../../core/ports/storage.js';
import type { ApprovalScope, ApprovalStatus, ToolApproval } from '../../../core/records/run.js';
import type { ToolApprovalsTable } from './database-schema.js';
import { fromJson, nowIso, toJson } from './sql-context.js';
import type { SqlContext } from './sql-context.js';

export function approvalFromRow(row: Selectable<ToolApprovalsTable>): ToolApproval {
  return {
    run_id: row.run_id,
    tool_call_id: row.tool_call_id,
    tool_name: row.tool_name,
    args: fromJson<unknown>(row.args),
    status: row.status,
    comment: row.comment,
    decided_by: row.decided_by,
    created_at: row.created_at,
    decided_at: row.decided_at,
    kind: row.kind,
    answers: row.answers === null ? null : fromJson<string[]>(row.answers),
    scope: row.scope,
  };
}

export class SqlApprovalRepository implements ApprovalRepository {
  constructor(private readonly ctx: SqlContext) {}

  async request(approval: NewToolApproval): Promise<ToolApproval> {
    // A resumed run asks again for the same call: the primary key keeps the first request (and its decision).
    await this.ctx.db
      .insertInto('tool_approvals')
      .values({
        run_id: approval.run_id,
        tool_call_id: approval.tool_call_id,
        tool_name: approval.tool_name,
        args: toJson(approval.args ?? null),
        status: 'pending',
        comment: null,
        decided_by: null,
        created_at: nowIso(this.ctx),
        decided_at: null,
        kind: approval.kind ?? 'approval',
        answers: null,
        scope: 'call',
      })
      .onConflict((oc) => oc.columns(['run_id', 'tool_call_id']).doNothing())
      .execute();
    const stored = await this.get(approval.run_id, approval.tool_call_id);
    if (!stored) throw new Error('approval vanished after insert');
    return stored;
  }

  async get(runId: string, toolCallId: string): Promise<ToolApproval | undefined> {
    const row = await this.ctx.db
      .selectFrom('tool_approvals')
      .selectAll()
      .where('run_id', '=', runId)
      .where('tool_call_id', '=', toolCallId)
      .executeTakeFirst();
    return row ? approvalFromRow(row) : undefined;
  }

  async decide(
    runId: string,
    toolCallId: string,
    status: Exclude<ApprovalStatus, 'pending'>,
    decidedBy: string,
    comment: string | null,
    scope: ApprovalScope = 'call',
  ): Promise<ToolApproval | undefined> {
    // Guarded on `pending`: two racing decisions cannot both win.
    const row = await this.ctx.db
      .updateTable('tool_approvals')
      .set({ status, decided_by: decidedBy, comment, decided_at: nowIso(this.ctx), scope })
      .where('run_id', '=', runId)
      .where('tool_call_id', '=', toolCallId)
      .where('kind', '=', 'approval')
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    return row ? approvalFromRow(row) : undefined;
  }

  async answer(
    runId: string,
    toolCallId: string,
    answers: string[],
    answeredBy: string,
  ): Promise<ToolApproval | undefined> {
    const row = await this.ctx.db
      .updateTable('tool_approvals')
      .set({
        status: 'answered',
        answers: toJson(answers),
        decided_by: answeredBy,
        decided_at: nowIso(this.ctx),
      })
      .where('run_id', '=', runId)
      .where('tool_call_id', '=', toolCallId)
      .where('kind', '=', 'question')
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    return row ? approvalFromRow(row) : undefined;
  }

  async runWideApproval(runId: string, toolName: string): Promise<ToolApproval | undefined> {
    const row = await this.ctx.db
      .selectFrom('tool_approvals')
      .selectAll()
      .where('run_id', '=', runId)
      .where('tool_name', '=', toolName)
      .where('kind', '=', 'approval')
      .where('status', '=', 'approved')
      .where('scope', '=', 'run')
      .orderBy('decided_at')
      .executeTakeFirst();
    return row ? approvalFromRow(row) : undefined;
  }

  async listForRun(runId: string): Promise<ToolApproval[]> {
    const rows = await this.ctx.db
      .selectFrom('tool_approvals')
      .selectAll()
      .where('run_id', '=', runId)
      .orderBy('created_at')
      .orderBy('tool_call_id')
      .execute();
    return rows.map(approvalFromRow);
  }
}
