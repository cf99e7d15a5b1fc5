import type {
  AgentsTable,
  ConversationsTable,
  ProjectsTable,
  RunBudgetsTable,
  RunsTable,
  SubagentThreadsTable,
  UsersTable,
} from './database-schema.js';

/** A table's columns in a fixed order, for statements that cannot `select *` (joins whose names collide). */
export type ColumnList<T> = readonly (keyof T & string)[];

/**
 * A table's columns, listed once as an object literal typed `Record<keyof T, true>`: a column missing from
 * the list, or one the table does not have, fails to compile, so a column added to the table cannot be left
 * out of a joined read silently (its mapper would then see undefined).
 */
function columnsOf<T>(columns: Record<keyof T & string, true>): ColumnList<T> {
  return Object.keys(columns) as (keyof T & string)[];
}

/**
 * The values of an insert, column by column from `args`: the prepared insert statements list every column
 * through it, so a column the list names is always bound (a missing argument fails the compile).
 */
export function valuesOf<T>(columns: ColumnList<T>, args: Record<string, unknown>): T {
  return Object.fromEntries(columns.map((column) => [column, args[column]])) as T;
}

export const AGENT_COLUMNS = columnsOf<AgentsTable>({
  id: true,
  slug: true,
  name: true,
  description: true,
  backend: true,
  is_subagent: true,
  owner_id: true,
  visibility: true,
  config: true,
  status: true,
  delegatable: true,
  delegation_brief: true,
  is_default: true,
  deleted_at: true,
  created_at: true,
  updated_at: true,
});

export const USER_COLUMNS = columnsOf<UsersTable>({
  id: true,
  name: true,
  role: true,
  delegation_policy: true,
  delegation_whitelist: true,
  created_at: true,
});

export const CONVERSATION_COLUMNS = columnsOf<ConversationsTable>({
  id: true,
  user_id: true,
  agent_id: true,
  thread_id: true,
  project_id: true,
  status: true,
  title: true,
  metadata: true,
  created_at: true,
  updated_at: true,
});

export const PROJECT_COLUMNS = columnsOf<ProjectsTable>({
  id: true,
  user_id: true,
  name: true,
  workdir: true,
  created_at: true,
});

export const RUN_BUDGET_COLUMNS = columnsOf<RunBudgetsTable>({
  run_id: true,
  parent_run_id: true,
  root_run_id: true,
  wall_ms: true,
  deadline_at: true,
  limit_tokens: true,
  used_tokens: true,
  carved_tokens: true,
  reserved_tokens: true,
  limit_model_calls: true,
  used_model_calls: true,
  carved_model_calls: true,
  reserved_model_calls: true,
  limit_tool_calls: true,
  used_tool_calls: true,
  carved_tool_calls: true,
  reserved_tool_calls: true,
});

export const RUN_COLUMNS = columnsOf<RunsTable>({
  id: true,
  thread_id: true,
  conversation_id: true,
  agent_id: true,
  user_id: true,
  run_type: true,
  source: true,
  channel: true,
  status: true,
  request_id: true,
  created_by_run_id: true,
  root_run_id: true,
  depth: true,
  subagent_thread_relation_id: true,
  runtime_scope_id: true,
  tool_approval_mode: true,
  model_spec: true,
  input: true,
  output: true,
  error: true,
  usage: true,
  worker_id: true,
  lease_expires_at: true,
  attempt: true,
  created_at: true,
  started_at: true,
  finished_at: true,
  updated_at: true,
  forked_from: true,
});

export const SUBAGENT_THREAD_COLUMNS = columnsOf<SubagentThreadsTable>({
  id: true,
  user_id: true,
  parent_conversation_id: true,
  child_conversation_id: true,
  child_thread_id: true,
  subagent_slug: true,
  created_by_run_id: true,
  created_at: true,
});
