import type { NewRun } from '../../../core/ports/storage.js';
import type { RunsTable } from './database-schema.js';
import { toJson } from './sql-context.js';

/** The row of a run as it is first written: pending, unclaimed, at attempt 0. */
export function newRunRow(run: NewRun, now: string): RunsTable {
  // Every column spelled out: a NewRun built by spreading a Run may carry fields that are not inputs.
  return {
    id: run.id,
    thread_id: run.thread_id,
    conversation_id: run.conversation_id,
    agent_id: run.agent_id,
    user_id: run.user_id,
    run_type: run.run_type,
    source: run.source,
    channel: run.channel,
    status: 'pending',
    request_id: run.request_id,
    created_by_run_id: run.created_by_run_id,
    root_run_id: run.root_run_id,
    depth: run.depth,
    subagent_thread_relation_id: run.subagent_thread_relation_id,
    runtime_scope_id: run.runtime_scope_id,
    tool_approval_mode: run.tool_approval_mode,
    model_spec: run.model_spec,
    input: toJson(run.input),
    output: null,
    error: null,
    usage: null,
    worker_id: null,
    lease_expires_at: null,
    attempt: 0,
    created_at: now,
    started_at: null,
    finished_at: null,
    updated_at: now,
    forked_from: run.forked_from ? toJson(run.forked_from) : null,
  };
}
