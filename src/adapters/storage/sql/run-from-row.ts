import type { Selectable } from 'kysely';
import type { ForkOrigin, Run, RunError, RunInput } from '../../../core/records/run.js';
import { usageOf } from '../../../core/runs/run-usage.js';
import type { RunsTable } from './database-schema.js';
import { fromJson, fromNullableJson, toNumber } from './sql-context.js';

/** A `runs` row as the record; shared by the run repository and the run list query. */
export function runFromRow(row: Selectable<RunsTable>): Run {
  return {
    id: row.id,
    thread_id: row.thread_id,
    conversation_id: row.conversation_id,
    agent_id: row.agent_id,
    user_id: row.user_id,
    run_type: row.run_type,
    source: row.source,
    channel: row.channel,
    status: row.status,
    request_id: row.request_id,
    created_by_run_id: row.created_by_run_id,
    root_run_id: row.root_run_id,
    depth: toNumber(row.depth),
    subagent_thread_relation_id: row.subagent_thread_relation_id,
    runtime_scope_id: row.runtime_scope_id,
    tool_approval_mode: row.tool_approval_mode,
    model_spec: row.model_spec,
    input: fromJson<RunInput>(row.input),
    output: row.output,
    error: fromNullableJson<RunError>(row.error),
    // Rows written before `aborted_model_calls` existed read as none aborted.
    usage: usageOf(fromNullableJson<unknown>(row.usage)),
    worker_id: row.worker_id,
    lease_expires_at: row.lease_expires_at,
    attempt: toNumber(row.attempt),
    created_at: row.created_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    updated_at: row.updated_at,
    forked_from: fromNullableJson<ForkOrigin>(row.forked_from),
  };
}
