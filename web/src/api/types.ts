/**
 * Wire types of the Troupe API, aliases of `openapi-types.ts`: that file is GENERATED from the server's
 * OpenAPI document (`npm run gen:api-types`, checked current by `npm test`), so the console cannot drift from
 * what the API documents (docs/interfaces.md#openapi). What the document does not describe precisely yet is
 * written here by hand, each with a comment saying why. Type-only imports: nothing ends up in the bundle.
 */
import type { components, paths } from './openapi-types.ts';
// The agent's settings: the document answers `config` as a free-form map (secrets come back redacted).
import type { AgentConfig, ToolApprovalMode } from '../../../src/core/records/agent.ts';
// Run events are core's discriminated union, shared with the server (docs/interfaces.md#openapi).
import type { RunEvent, RunEventType, SubagentUpdatePayload } from '../../../src/core/records/run-event.ts';
import type { Refusal } from '../../../src/core/records/refusal.ts';

type Schemas = components['schemas'];
type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
/** The JSON body `path` answers `method` with `status`. */
type Answer<P extends keyof paths, M extends Method, S extends number = 200> = paths[P][M] extends {
  responses: infer R;
}
  ? S extends keyof R
    ? R[S] extends { content: { 'application/json': infer B } }
      ? B
      : never
    : never
  : never;
/** The JSON body `path` takes for `method`. */
type RequestJson<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : never;

export type { AgentConfig, Refusal, RunEvent, RunEventType, SubagentUpdatePayload, ToolApprovalMode };

/** The document types `config` as a free-form map; the console reads it as the settings it sends. */
export type Agent = Omit<Schemas['Agent'], 'config'> & { config: AgentConfig };
export type AgentVisibility = Schemas['Agent']['visibility'];
export type Conversation = Schemas['Conversation'];
/** What the API sends for a run: the record with live usage and a lost worker, if any. */
export type Run = Schemas['Run'];
export type RunStatus = Run['status'];
export type TokenUsage = Schemas['TokenUsage'];
export type WorkerLost = Schemas['WorkerLost'];
export type User = Schemas['User'];
export type DelegationPolicy = User['delegation_policy'];
export type Skill = Schemas['Skill'];
export type KnowledgeSource = Schemas['KnowledgeSource'];
export type KnowledgeDocument = Schemas['KnowledgeDocument'];
export type KnowledgeHit = Schemas['KnowledgeHit'];
export type ChunkLocation = KnowledgeHit['location'];
export type BudgetView = Schemas['BudgetView'];
export type BudgetLimits = BudgetView['limits'];
export type RunListItem = Schemas['RunListItem'];
export type RunListPage = Answer<'/api/agent/runs', 'get'>;
export type RunTrace = Schemas['RunTrace'];
export type TraceNode = RunTrace['nodes'][number];
export type RunTimeline = TraceNode['timeline'];
export type TimelineSpan = RunTimeline['spans'][number];
export type UsageTotals = TraceNode['totals']['own'];
export type RunTreeNode = Schemas['RunTreeNode'];
export type ForkOrigin = Schemas['ForkOrigin'];
export type RunComparison = Schemas['RunComparison'];
export type ComparedRun = Schemas['ComparedRun'];
export type ForkBody = RequestJson<'/api/agent/runs/{id}/fork', 'post'>;
export type ForkedRun = Answer<'/api/agent/runs/{id}/fork', 'post', 202>;
type ChildRunEntry = Schemas['ChildRunEntry'];
type UnknownYet = 'child_thread_id' | 'child_conversation_id' | 'description' | 'progress' | 'created_at';
/**
 * One card of the status panel: an entry of `GET /api/conversations/{id}/subagents`, or a card the console
 * builds from a `subagent_update` event before that list has the child, hence the fields it may not know yet.
 */
export type SubagentRunEntry = Omit<
  ChildRunEntry,
  UnknownYet | 'result' | 'updated_at' | 'worker_lost' | 'budget' | 'verification'
> & {
  [K in UnknownYet]: ChildRunEntry[K] | null;
} & {
  /** An event's error may lack `type`; a refusal (a budget) carries its data. */
  result: {
    output: string | null;
    error: { type?: string; message: string; refusal?: Refusal } | null;
  } | null;
  updated_at?: string;
  worker_lost?: WorkerLost | null;
  budget?: BudgetView | null;
  /** The stored verdict (the list endpoint's); a card built from an event has none yet. */
  verification?: ChildRunEntry['verification'];
};
export type SubagentProgressItem = ChildRunEntry['progress']['items'][number];
/** `{error: {code, message}}`, every API error. */
export type ApiErrorBody = Schemas['Error'];
/** A token as `/api/me/tokens` lists it: never the secret. */
export type PublicToken = Schemas['ApiToken'];
export type StartedRun = Answer<'/api/conversations/{id}/messages', 'post', 202>;
export type DelegationPolicySettings = Answer<'/api/me/delegation-policy', 'get'>;
export type NewAgentBody = Omit<RequestJson<'/api/agent', 'post'>, 'config'> & { config?: AgentConfig };
export type AgentPatchBody = Partial<Omit<NewAgentBody, 'backend' | 'is_subagent'>>;
/** `GET /api/skills/{id}`: the skill, its files and its SKILL.md. */
export type SkillDetail = Answer<'/api/skills/{id}', 'get'>;
export type SkillFileInfo = SkillDetail['files'][number];
/** `POST /api/skills`: 201 for a new skill, 200 for a new version. */
export type SavedSkill = Answer<'/api/skills', 'post', 201>;
/** `POST /api/knowledge/{id}/documents`: each stored document, and whether it replaced one of its name. */
export type AddedKnowledgeDocument = Answer<
  '/api/knowledge/{id}/documents',
  'post',
  201
>['documents'][number];
export type KnowledgeSearchResponse = Answer<'/api/knowledge/{id}/search', 'post'>;
/** A subagent as the build report resolves it (`subagents` of the report body). */
export type ResolvedSubagentView = Pick<
  Schemas['BuildReport']['subagents'][number],
  'name' | 'tools' | 'model' | 'source' | 'spec_index' | 'replaces_dropped_spec_index'
>;
/** One question of `ask_user_question`. */
export type UserQuestion = Schemas['RunQuestion']['questions'][number];
/** An artifact as `GET /api/conversations/{id}/artifacts` and the `artifact` event show it. */
export type ArtifactView = Schemas['Artifact'];
/** A file attached to a conversation (`POST /api/conversations/{id}/attachments`). */
export type AttachmentView = Schemas['Attachment'];
/** `GET /api/limits`: what the server accepts, checked before an upload. */
export type ServerLimits = Schemas['ServerLimits'];

/**
 * A persisted thread message. The document gives `message.content` as `unknown` (a string or parts), so
 * the parts the console draws are typed by hand below (`ModelMessage`).
 */
export type ThreadMessage = Omit<Schemas['ThreadMessage'], 'message' | 'usage'> & {
  message: ModelMessage;
  /** A model's turn: the usage of the call that produced it (absent from servers before issue 35). */
  usage?: Schemas['ThreadMessage']['usage'];
};

/** `GET /api/agent/runs/{id}/steps/{step}`: one model call, its messages in the console's own shape. */
export type InspectedStep = Omit<Schemas['InspectedStep'], 'prompt' | 'completion'> & {
  prompt: Omit<Schemas['InspectedStep']['prompt'], 'messages'> & { messages: ThreadMessage[] };
  completion: ThreadMessage | null;
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
  'context_compacted',
] as const satisfies readonly RunEventType[];

const TERMINAL: readonly RunStatus[] = ['completed', 'failed', 'cancelled', 'interrupted'];

export function isTerminalStatus(status: RunStatus): boolean {
  return TERMINAL.includes(status);
}

/** A message's shape as the console draws it (the document leaves `content` open, see `ThreadMessage`). */
export type ModelMessage =
  | { role: 'system'; content: string }
  | {
      role: 'user';
      content: string | ContentPart[];
      /** `troupe.compaction`: a summary of earlier turns (docs/model-calls.md#compaction), not the user's. */
      providerOptions?: { troupe?: { compaction?: { kept: number; summarised: number } } } & Record<
        string,
        unknown
      >;
    }
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
  | {
      type: 'tool-result';
      toolCallId: string;
      toolName: string;
      output: ToolResultOutput;
      providerOptions?: Record<string, Record<string, unknown>>;
    }
  | { type: string; [key: string]: unknown };

export type ToolResultOutput =
  | { type: 'text' | 'error-text'; value: string }
  | { type: 'json' | 'error-json'; value: unknown }
  | { type: string; value?: unknown; [key: string]: unknown };

/** The verdicts `GET /api/agent/runs?verdict=` filters on: a stored verdict is never `unverified`. */
export const RUN_VERDICTS = ['satisfied', 'needs_revision', 'failed'] as const;
export type RunVerdict = (typeof RUN_VERDICTS)[number];

/** Filters of `GET /api/agent/runs` as the console holds them; lists are sent comma-separated. */
export interface RunListQuery {
  status?: RunStatus[];
  kind?: Run['run_type'][];
  agent?: string;
  conversation_id?: string;
  user_id?: string;
  from?: string;
  to?: string;
  q?: string;
  /** true: only runs forks started. */
  forked?: boolean;
  /** Only child runs judged so (docs/verified-delegation.md). */
  verdict?: RunVerdict[];
  cursor?: string;
  limit?: number;
}
