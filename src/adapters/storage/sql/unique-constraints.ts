import type { DatabaseSchema } from './database-schema.js';

interface UniqueConstraintSpec {
  table: keyof DatabaseSchema;
  columns: readonly string[];
}

/**
 * Every unique key of the schema, by the name both engines report. PostgreSQL names the violated index
 * (`error.constraint`); SQLite only names the columns ("UNIQUE constraint failed: runs.thread_id"), so the
 * columns must identify a key on their own: no two unique keys here share a column list. Primary keys use
 * PostgreSQL's default `<table>_pkey` names.
 */
export const UNIQUE_CONSTRAINTS = {
  users_pkey: { table: 'users', columns: ['id'] },
  users_name_uq: { table: 'users', columns: ['name'] },
  api_tokens_pkey: { table: 'api_tokens', columns: ['id'] },
  api_tokens_hash_uq: { table: 'api_tokens', columns: ['token_hash'] },
  agents_pkey: { table: 'agents', columns: ['id'] },
  agents_slug_uq: { table: 'agents', columns: ['slug'] },
  /** Partial: `WHERE is_default = 1`. */
  agents_default_uq: { table: 'agents', columns: ['is_default'] },
  agent_access_pkey: { table: 'agent_access', columns: ['user_id', 'agent_id'] },
  projects_pkey: { table: 'projects', columns: ['id'] },
  conversations_pkey: { table: 'conversations', columns: ['id'] },
  conversations_thread_uq: { table: 'conversations', columns: ['thread_id'] },
  thread_messages_thread_seq_uq: { table: 'thread_messages', columns: ['thread_id', 'seq'] },
  subagent_threads_pkey: { table: 'subagent_threads', columns: ['id'] },
  subagent_threads_child_thread_uq: { table: 'subagent_threads', columns: ['child_thread_id'] },
  subagent_threads_child_conversation_uq: { table: 'subagent_threads', columns: ['child_conversation_id'] },
  runs_pkey: { table: 'runs', columns: ['id'] },
  /** Partial: one active run per thread. */
  runs_active_thread_uq: { table: 'runs', columns: ['thread_id'] },
  run_events_run_seq_uq: { table: 'run_events', columns: ['run_id', 'seq'] },
  tool_approvals_pkey: { table: 'tool_approvals', columns: ['run_id', 'tool_call_id'] },
  run_inbox_run_seq_uq: { table: 'run_inbox', columns: ['run_id', 'seq'] },
  /** Idempotency keys are per user (docs/runs.md): another user's `request_id` never conflicts (0003). */
  runs_user_request_id_uq: { table: 'runs', columns: ['user_id', 'request_id'] },
  skills_pkey: { table: 'skills', columns: ['id'] },
  skills_name_uq: { table: 'skills', columns: ['name'] },
  skill_files_pkey: { table: 'skill_files', columns: ['skill_id', 'path'] },
  skill_access_pkey: { table: 'skill_access', columns: ['user_id', 'skill_id'] },
  knowledge_sources_pkey: { table: 'knowledge_sources', columns: ['id'] },
  knowledge_sources_name_uq: { table: 'knowledge_sources', columns: ['name'] },
  knowledge_access_pkey: { table: 'knowledge_access', columns: ['user_id', 'source_id'] },
  knowledge_documents_pkey: { table: 'knowledge_documents', columns: ['id'] },
  knowledge_documents_source_name_uq: { table: 'knowledge_documents', columns: ['source_id', 'name'] },
  knowledge_chunks_pkey: { table: 'knowledge_chunks', columns: ['id'] },
  knowledge_chunks_document_seq_uq: { table: 'knowledge_chunks', columns: ['document_id', 'seq'] },
  artifacts_pkey: { table: 'artifacts', columns: ['id'] },
  artifacts_call_path_uq: { table: 'artifacts', columns: ['run_id', 'tool_call_id', 'path'] },
  attachments_pkey: { table: 'attachments', columns: ['id'] },
  sequence_counters_pkey: { table: 'sequence_counters', columns: ['key'] },
} as const satisfies Record<string, UniqueConstraintSpec>;

/**
 * Keys an earlier migration created and a later one dropped: still named by the shipped migrations that
 * create them, never reported by an up-to-date database.
 */
export type RetiredUniqueConstraintName = 'runs_request_id_uq';

export type UniqueConstraintName = keyof typeof UNIQUE_CONSTRAINTS;

export function isUniqueConstraintName(name: string): name is UniqueConstraintName {
  return Object.hasOwn(UNIQUE_CONSTRAINTS, name);
}

const BY_SQLITE_COLUMN_LIST: ReadonlyMap<string, UniqueConstraintName> = new Map(
  (Object.entries(UNIQUE_CONSTRAINTS) as [UniqueConstraintName, UniqueConstraintSpec][]).map(
    ([name, spec]) => [spec.columns.map((column) => `${spec.table}.${column}`).join(', '), name],
  ),
);

/** The key SQLite describes as `runs.thread_id` or `run_events.run_id, run_events.seq`. */
export function constraintBySqliteColumnList(columnList: string): UniqueConstraintName | undefined {
  return BY_SQLITE_COLUMN_LIST.get(columnList.trim());
}
