/**
 * Wire types of the Troupe API. The records are the server's own (type-only imports: nothing from `src/`
 * ends up in the bundle), so the console cannot drift from what the API sends.
 */
import type {
  Agent,
  AgentConfig,
  AgentVisibility,
  ToolApprovalMode,
} from '../../../src/core/records/agent.ts';
import type { Conversation } from '../../../src/core/records/conversation.ts';
import type { Artifact } from '../../../src/core/records/artifact.ts';
import type { Attachment } from '../../../src/core/records/attachment.ts';
import type { UserQuestion } from '../../../src/core/questions/user-questions.ts';
// What the API sends for a run is its view: the record with live usage and a lost worker, if any.
import type { RunView as Run, RunStatus, TokenUsage, WorkerLost } from '../../../src/core/records/run.ts';
import type { RunEvent, RunEventType } from '../../../src/core/records/run-event.ts';
import type { DelegationPolicy, User } from '../../../src/core/records/user.ts';
import type { Skill, SkillFileInfo } from '../../../src/core/records/skill.ts';
import type {
  ChunkLocation,
  KnowledgeDocument,
  KnowledgeHit,
  KnowledgeSource,
} from '../../../src/core/records/knowledge.ts';
import type { RunListItem, RunListPage } from '../../../src/core/records/run-list.ts';
import type { RunTrace, TraceNode } from '../../../src/core/trace/run-trace.ts';
import type { InspectedStep as InspectedStepRecord } from '../../../src/core/records/inspected-step.ts';
import type { BudgetView } from '../../../src/core/budgets/budget-view.ts';
import type { BudgetLimits } from '../../../src/core/budgets/budget.ts';
import type { RunTimeline, TimelineSpan, UsageTotals } from '../../../src/core/trace/run-timeline.ts';

export type {
  BudgetLimits,
  BudgetView,
  Agent,
  AgentConfig,
  AgentVisibility,
  Conversation,
  DelegationPolicy,
  Run,
  RunEvent,
  RunEventType,
  RunListItem,
  RunListPage,
  RunTimeline,
  RunTrace,
  TimelineSpan,
  TraceNode,
  UsageTotals,
  RunStatus,
  TokenUsage,
  WorkerLost,
  ToolApprovalMode,
  User,
  Skill,
  SkillFileInfo,
  ChunkLocation,
  KnowledgeDocument,
  KnowledgeHit,
  KnowledgeSource,
};

export const RUN_STATUSES = [
  'pending',
  'running',
  'input_required',
  'cancel_requested',
  'completed',
  'failed',
  'cancelled',
  'interrupted',
] as const satisfies readonly RunStatus[];

export const RUN_EVENT_TYPES = [
  'metadata',
  'message_delta',
  'tool_call',
  'tool_result',
  'step',
  'subagent_update',
  'approval_required',
  'error',
  'end',
  'question_required',
  'artifact',
  'model_retry',
  'model_fallback',
] as const satisfies readonly RunEventType[];

const TERMINAL: readonly RunStatus[] = ['completed', 'failed', 'cancelled', 'interrupted'];

export function isTerminalStatus(status: RunStatus): boolean {
  return TERMINAL.includes(status);
}

/** `{error: {code, message}}`, every API error. */
export interface ApiErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** A token as `/api/me/tokens` lists it: never the secret. */
export interface PublicToken {
  id: string;
  user_id: string;
  name: string;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** `GET /api/agent/runs/{id}/steps/{step}`: one model call, its messages in the console's own shape. */
export type InspectedStep = Omit<InspectedStepRecord, 'prompt' | 'completion'> & {
  prompt: Omit<InspectedStepRecord['prompt'], 'messages'> & { messages: ThreadMessage[] };
  completion: ThreadMessage | null;
};

/** A persisted thread message; `message` is an AI SDK `ModelMessage`. */
export interface ThreadMessage {
  thread_id: string;
  seq: number;
  run_id: string | null;
  step: number;
  message: ModelMessage;
  created_at: string;
  /** A model's turn: the usage of the call that produced it (absent from servers before issue 35). */
  usage?: { input_tokens: number; output_tokens: number } | null;
}

export type ModelMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ContentPart[] }
  | {
      role: 'assistant';
      content: string | ContentPart[];
      /** `troupe.partial`: the text a run streamed before it ended mid-answer (`troupe.run_status` says how). */
      providerOptions?: { troupe?: { partial?: boolean; run_status?: string } } & Record<string, unknown>;
    }
  | { role: 'tool'; content: ContentPart[] };

export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }
  | { type: 'tool-result'; toolCallId: string; toolName: string; output: ToolResultOutput }
  | { type: string; [key: string]: unknown };

export type ToolResultOutput =
  | { type: 'text' | 'error-text'; value: string }
  | { type: 'json' | 'error-json'; value: unknown }
  | { type: string; value?: unknown; [key: string]: unknown };

export interface StartedRun {
  status: 'started' | 'existing';
  run: Run;
}

export interface SubagentProgressItem {
  seq: number;
  kind: string;
  content: string;
}

/** One card of the status panel: `GET /api/conversations/{id}/subagents`. */
export interface SubagentRunEntry {
  run_id: string;
  kind: 'subagent' | 'delegation';
  slug: string | null;
  name: string | null;
  status: RunStatus;
  child_thread_id: string | null;
  child_conversation_id: string | null;
  parent_run_id: string | null;
  parent_tool_call_id: string | null;
  description: string | null;
  progress: { last_seq: number; items: SubagentProgressItem[] } | null;
  result: { output: string | null; error: { type?: string; message: string } | null } | null;
  created_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  usage: TokenUsage | null;
  /** Last change of the run (servers from issue 18 on). */
  updated_at?: string;
  /** Set while an expired lease holds the child (servers from issue 35 on). */
  worker_lost?: WorkerLost | null;
  /** The child's budget (SPEC §10), live while it runs; null or absent without one. */
  budget?: BudgetView | null;
}

/** Payload of a `subagent_update` event on the parent's stream. */
export interface SubagentUpdatePayload {
  run_id: string;
  slug?: string | null;
  name?: string | null;
  status: RunStatus;
  child_thread_id?: string | null;
  child_conversation_id?: string | null;
  parent_tool_call_id?: string | null;
  description?: string | null;
  kind?: 'subagent' | 'delegation';
  error?: { type?: string; message: string } | string | null;
  output?: string | null;
}

export interface RunTreeNode {
  run: Run;
  children: RunTreeNode[];
}

export interface DelegationPolicySettings {
  policy: DelegationPolicy;
  whitelist: string[];
  [key: string]: unknown;
}

export interface NewAgentBody {
  slug?: string;
  name: string;
  description?: string;
  backend?: Agent['backend'];
  is_subagent?: boolean;
  visibility?: AgentVisibility;
  config?: AgentConfig;
  status?: Agent['status'];
  delegatable?: boolean;
  delegation_brief?: string | null;
}

export type AgentPatchBody = Partial<Omit<NewAgentBody, 'backend' | 'is_subagent'>>;

/** `GET /api/skills/{id}`: the skill, its files and its SKILL.md. */
export interface SkillDetail {
  skill: Skill;
  files: SkillFileInfo[];
  skill_md: string;
}

/** `POST /api/skills`: 201 for a new skill, 200 for a new version. */
export interface SavedSkill {
  skill: Skill;
  files: SkillFileInfo[];
}

/** `POST /api/knowledge/{id}/documents`: each stored document, and whether it replaced one of its name. */
export interface AddedKnowledgeDocument {
  document: KnowledgeDocument;
  replaced: boolean;
}

/** `POST /api/knowledge/{id}/search`. */
export interface KnowledgeSearchResponse {
  query: string;
  terms: string[];
  results: KnowledgeHit[];
}

/** Filters of `GET /api/agent/runs`; lists are sent comma-separated. */
export interface RunListQuery {
  status?: RunStatus[];
  kind?: Run['run_type'][];
  agent?: string;
  conversation_id?: string;
  user_id?: string;
  from?: string;
  to?: string;
  q?: string;
  cursor?: string;
  limit?: number;
}

/** A subagent as the build report resolves it (`subagents` of the report body). */
export interface ResolvedSubagentView {
  name: string;
  tools: string[];
  model: string;
  source: 'builtin' | 'inline';
  spec_index: number | null;
  replaces_dropped_spec_index?: number;
}
/** One question of `ask_user_question`. */
export type { UserQuestion };

/** An artifact as `GET /api/conversations/{id}/artifacts` and the `artifact` event show it. */
export type ArtifactView = Omit<Artifact, 'user_id' | 'tool_call_id'>;

/** A file attached to a conversation (`POST /api/conversations/{id}/attachments`). */
export type AttachmentView = Attachment;

/** `GET /api/limits`: what the server accepts, checked before an upload. */
export interface ServerLimits {
  attachment_max_bytes: number;
  attachment_max_files: number;
}
