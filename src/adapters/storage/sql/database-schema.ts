import type {
  AccessSource,
  AgentBackend,
  AgentVisibility,
  ExpertStatus,
  ToolApprovalMode,
} from '../../../core/records/agent.js';
import type { ConversationStatus } from '../../../core/records/conversation.js';
import type { RunEventType } from '../../../core/records/run-event.js';
import type { ApprovalScope, ApprovalStatus, HumanInputKind, RunChannel, RunStatus, RunType } from '../../../core/records/run.js';
import type { DelegationPolicy, UserRole } from '../../../core/records/user.js';
import type {
  KnowledgeAccessTable,
  KnowledgeChunksTable,
  KnowledgeDocumentsTable,
  KnowledgeSourcesTable,
} from './knowledge-tables.js';

/**
 * Kysely table types: the rows exactly as both engines store them. One column layout serves SQLite and
 * PostgreSQL, so timestamps are ISO-8601 text (fixed width: text order is time order), JSON is text and
 * booleans are integers 0/1. Enum columns are typed with their record unions because only this adapter
 * writes them.
 */
export type SqlBoolean = 0 | 1;

export interface UsersTable {
  id: string;
  name: string;
  role: UserRole;
  delegation_policy: DelegationPolicy;
  /** JSON array of agent slugs. */
  delegation_whitelist: string;
  created_at: string;
}

export interface ApiTokensTable {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface AgentsTable {
  id: string;
  slug: string;
  name: string;
  description: string;
  backend: AgentBackend;
  is_subagent: SqlBoolean;
  owner_id: string;
  visibility: AgentVisibility;
  /** JSON AgentConfig. */
  config: string;
  status: ExpertStatus;
  delegatable: SqlBoolean;
  delegation_brief: string | null;
  is_default: SqlBoolean;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface AgentAccessTable {
  user_id: string;
  agent_id: string;
  source: AccessSource;
  created_at: string;
}

export interface ProjectsTable {
  id: string;
  user_id: string;
  name: string;
  workdir: string;
  created_at: string;
}

export interface ConversationsTable {
  id: string;
  user_id: string;
  agent_id: string;
  thread_id: string;
  project_id: string;
  status: ConversationStatus;
  title: string;
  /** JSON object. */
  metadata: string;
  created_at: string;
  updated_at: string;
}

export interface ThreadMessagesTable {
  thread_id: string;
  seq: number;
  run_id: string | null;
  step: number;
  /** JSON ChatMessage (src/core/thread/chat-message.ts). */
  message: string;
  created_at: string;
  /** JSON ModelCallUsage of the call whose turn this is; null for every other message. */
  usage: string | null;
}

export interface SubagentThreadsTable {
  id: string;
  user_id: string;
  parent_conversation_id: string;
  child_conversation_id: string;
  child_thread_id: string;
  subagent_slug: string;
  created_by_run_id: string;
  created_at: string;
}

export interface RunsTable {
  id: string;
  thread_id: string;
  conversation_id: string;
  agent_id: string;
  user_id: string;
  run_type: RunType;
  source: string;
  channel: RunChannel;
  status: RunStatus;
  request_id: string;
  created_by_run_id: string | null;
  root_run_id: string;
  depth: number;
  subagent_thread_relation_id: string | null;
  runtime_scope_id: string;
  tool_approval_mode: ToolApprovalMode;
  model_spec: string;
  /** JSON RunInput. */
  input: string;
  output: string | null;
  /** JSON RunError. */
  error: string | null;
  /** JSON TokenUsage. */
  usage: string | null;
  worker_id: string | null;
  lease_expires_at: string | null;
  attempt: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

export interface RunEventsTable {
  run_id: string;
  seq: number;
  type: RunEventType;
  /** JSON object. */
  payload: string;
  created_at: string;
}

export interface ToolApprovalsTable {
  run_id: string;
  tool_call_id: string;
  tool_name: string;
  /** JSON. */
  args: string;
  status: ApprovalStatus;
  comment: string | null;
  decided_by: string | null;
  created_at: string;
  decided_at: string | null;
  kind: HumanInputKind;
  /** JSON string array; set when a question is answered. */
  answers: string | null;
  scope: ApprovalScope;
}

export interface RunInboxTable {
  run_id: string;
  seq: number;
  message: string;
  created_at: string;
  read_at: string | null;
}

export interface SkillsTable {
  id: string;
  name: string;
  description: string;
  owner_id: string;
  visibility: AgentVisibility;
  digest: string;
  file_count: number;
  total_bytes: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface SkillFilesTable {
  skill_id: string;
  path: string;
  size: number;
  /** Base64 of the file's bytes. */
  content: string;
}

export interface SkillAccessTable {
  user_id: string;
  skill_id: string;
  created_at: string;
}

export interface DatabaseSchema {
  users: UsersTable;
  api_tokens: ApiTokensTable;
  agents: AgentsTable;
  agent_access: AgentAccessTable;
  projects: ProjectsTable;
  conversations: ConversationsTable;
  thread_messages: ThreadMessagesTable;
  subagent_threads: SubagentThreadsTable;
  runs: RunsTable;
  run_events: RunEventsTable;
  tool_approvals: ToolApprovalsTable;
  run_inbox: RunInboxTable;
  skills: SkillsTable;
  skill_files: SkillFilesTable;
  skill_access: SkillAccessTable;
  knowledge_sources: KnowledgeSourcesTable;
  knowledge_access: KnowledgeAccessTable;
  knowledge_documents: KnowledgeDocumentsTable;
  knowledge_chunks: KnowledgeChunksTable;
  artifacts: ArtifactsTable;
  attachments: AttachmentsTable;
  run_budgets: RunBudgetsTable;
}

export interface ArtifactsTable {
  id: string;
  run_id: string;
  conversation_id: string;
  user_id: string;
  tool_call_id: string;
  path: string;
  title: string | null;
  /** bigint: PostgreSQL returns it as a string. */
  size: number | string;
  content_type: string;
  created_at: string;
}

export interface AttachmentsTable {
  id: string;
  conversation_id: string;
  user_id: string;
  name: string;
  path: string;
  /** bigint: PostgreSQL returns it as a string. */
  size: number | string;
  content_type: string;
  created_at: string;
}

export interface RunBudgetsTable {
  run_id: string;
  parent_run_id: string | null;
  root_run_id: string;
  wall_ms: number | null;
  deadline_at: string | null;
  limit_tokens: number | null;
  used_tokens: number;
  carved_tokens: number;
  reserved_tokens: number;
  limit_model_calls: number | null;
  used_model_calls: number;
  carved_model_calls: number;
  reserved_model_calls: number;
  limit_tool_calls: number | null;
  used_tool_calls: number;
  carved_tool_calls: number;
  reserved_tool_calls: number;
}
