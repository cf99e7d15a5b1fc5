import type { Agent, AgentAccess } from '../../../core/records/agent.js';
import type { ApiToken } from '../../../core/records/api-token.js';
import type { Artifact } from '../../../core/records/artifact.js';
import type { Attachment } from '../../../core/records/attachment.js';
import type { BudgetDimension } from '../../../core/budgets/budget-dimension.js';
import type { RunBudget } from '../../../core/budgets/budget.js';
import type { Conversation, SubagentThread } from '../../../core/records/conversation.js';
import type { Project } from '../../../core/records/project.js';
import type { RunEventType } from '../../../core/records/run-event.js';
import type { Run, ToolApproval } from '../../../core/records/run.js';
import type { Skill, SkillAccess } from '../../../core/records/skill.js';
import type { ThreadMessage } from '../../../core/records/thread-message.js';
import type { User } from '../../../core/records/user.js';
import type { Verdict } from '../../../core/verification/verification.js';
import type {
  KnowledgeAccessTable,
  KnowledgeChunksTable,
  KnowledgeDocumentsTable,
  KnowledgeSourcesTable,
} from './knowledge-tables.js';
import type { SqlRow } from './sql-row.js';

export type { SqlBoolean } from './sql-row.js';

/**
 * Kysely table types: the rows exactly as both engines store them. One column layout serves SQLite and
 * PostgreSQL, so timestamps are ISO-8601 text (fixed width: text order is time order), JSON is text and
 * booleans are integers 0/1. Each table whose rows are a core record is derived from it (`SqlRow`); only
 * the columns stored otherwise are written here.
 */
/** `delegation_whitelist`: JSON array of agent slugs. */
export type UsersTable = SqlRow<User, 'delegation_whitelist'>;

export type ApiTokensTable = SqlRow<ApiToken>;

/** `config`: JSON AgentConfig. */
export type AgentsTable = SqlRow<Agent, 'config', 'is_subagent' | 'delegatable' | 'is_default'>;

export type AgentAccessTable = SqlRow<AgentAccess>;

export type ProjectsTable = SqlRow<Project>;

export type ConversationsTable = SqlRow<Conversation, 'metadata'>;

/**
 * `message`: JSON ChatMessage (src/core/thread/chat-message.ts); `usage`: JSON ModelCallUsage of the call
 * whose turn this is, null for every other message.
 */
export type ThreadMessagesTable = SqlRow<ThreadMessage, 'message' | 'usage'>;

export type SubagentThreadsTable = SqlRow<SubagentThread>;

/** `input`: JSON RunInput; `error`: JSON RunError; `usage`: JSON TokenUsage; `forked_from`: JSON ForkOrigin. */
export type RunsTable = SqlRow<Run, 'input' | 'error' | 'usage' | 'forked_from'>;

/**
 * Written out rather than derived: `RunEvent` is a union by `type` (src/core/records/run-event.ts), and a
 * row type must be one object type.
 */
export interface RunEventsTable {
  run_id: string;
  seq: number;
  type: RunEventType;
  /** JSON object. */
  payload: string;
  created_at: string;
}

/** `verification`: JSON Verification (src/core/verification/verification.ts). */
export interface RunVerificationsTable {
  run_id: string;
  user_id: string;
  parent_run_id: string | null;
  verdict: Verdict;
  verification: string;
  created_at: string;
}

/** `args`: JSON; `answers`: JSON string array, set when a question is answered. */
export type ToolApprovalsTable = SqlRow<ToolApproval, 'args' | 'answers'>;

/** The steering inbox has no core record: its messages are read into the run's next step. */
export interface RunInboxTable {
  run_id: string;
  seq: number;
  message: string;
  created_at: string;
  read_at: string | null;
}

/** The journal's `started` marks of external tool calls; there is no core record. */
export interface ToolCallStartsTable {
  run_id: string;
  tool_call_id: string;
  started_at: string;
}

export type SkillsTable = SqlRow<Skill>;

/** One file of a skill: its size beside its bytes, which are Base64 text. */
export interface SkillFilesTable {
  skill_id: string;
  path: string;
  size: number;
  content: string;
}

export type SkillAccessTable = SqlRow<SkillAccess>;

/** bigint columns: PostgreSQL returns them as strings. */
interface BigintSize {
  size: number | string;
}

export type ArtifactsTable = Omit<SqlRow<Artifact>, 'size'> & BigintSize;

export type AttachmentsTable = Omit<SqlRow<Attachment>, 'size'> & BigintSize;

/** A budget's ledger is one column per dimension and amount: `limit_tokens`, `used_model_calls`, … */
type LedgerColumns<Amount extends string, Value> = { [D in BudgetDimension as `${Amount}_${D}`]: Value };

export type RunBudgetsTable = SqlRow<Pick<RunBudget, 'run_id' | 'parent_run_id' | 'deadline_at'>> & {
  root_run_id: string;
  wall_ms: number | null;
} & LedgerColumns<'limit', number | null> &
  LedgerColumns<'used', number> &
  LedgerColumns<'carved', number> &
  LedgerColumns<'reserved', number>;

/** The last number taken per sequence key on PostgreSQL (sequence-base.ts); bigint, so read as text by `pg`. */
export interface SequenceCountersTable {
  key: string;
  last_value: number | string;
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
  run_verifications: RunVerificationsTable;
  tool_approvals: ToolApprovalsTable;
  run_inbox: RunInboxTable;
  tool_call_starts: ToolCallStartsTable;
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
  sequence_counters: SequenceCountersTable;
}
