import type { ModelMessage } from 'ai';
import type { Agent, AgentAccess, AccessSource, AgentConfig, AgentBackend, AgentVisibility, ExpertStatus } from '../records/agent.js';
import type { ApiToken } from '../records/api-token.js';
import type { Conversation, ConversationStatus, SubagentThread } from '../records/conversation.js';
import type { Project } from '../records/project.js';
import type { Skill, SkillAccess, SkillFile, SkillFileInfo, SkillVisibility } from '../records/skill.js';
import type { NewRunEvent, RunEvent } from '../records/run-event.js';
import type { ApprovalStatus, HumanInputKind, Run, RunStatus, RunType, ToolApproval } from '../records/run.js';
import type { Artifact } from '../records/artifact.js';
import type { Attachment } from '../records/attachment.js';
import type { ThreadMessage } from '../records/thread-message.js';
import type { KnowledgeDocumentRepository, KnowledgeSourceRepository } from './knowledge-storage.js';
import type { Actor, DelegationPolicy, User, UserRole } from '../records/user.js';
import type { RunBudgetRepository } from './run-budget-repository.js';

/**
 * The storage port. One implementation per database (`src/adapters/storage/*`), all passing the same
 * contract suite. Repositories return plain records; ids and timestamps are assigned by the repository.
 *
 * Integrity rules live in the schema, not in check-then-insert code:
 * - `runs (user_id, request_id)` is unique: `runs.insert` throws `TroupeError('request_id_conflict')` on a
 *   duplicate of the same user; another user's equal `request_id` is no conflict;
 * - one active run per thread (partial unique index): `runs.insert` throws `TroupeError('run_busy')`;
 * - `agents.slug` is unique: `agents.create`/`update` throw `TroupeError('agent_slug_taken')`;
 * - `run_events (run_id, seq)` is unique and `seq` is assigned gaplessly by `events.append`.
 */
export interface Storage {
  readonly users: UserRepository;
  readonly tokens: TokenRepository;
  readonly agents: AgentRepository;
  readonly access: AccessRepository;
  readonly projects: ProjectRepository;
  readonly conversations: ConversationRepository;
  readonly messages: MessageRepository;
  readonly subagentThreads: SubagentThreadRepository;
  readonly runs: RunRepository;
  readonly events: RunEventRepository;
  readonly approvals: ApprovalRepository;
  readonly inbox: RunInboxRepository;
  readonly skills: SkillRepository;
  readonly knowledgeSources: KnowledgeSourceRepository;
  readonly knowledgeDocuments: KnowledgeDocumentRepository;
  readonly artifacts: ArtifactRepository;
  readonly attachments: AttachmentRepository;
  readonly budgets: RunBudgetRepository;
  /**
   * Runs `work` in one database transaction, with a Storage bound to it. A throw rolls everything back.
   * Calling `transaction` on a Storage that is already inside one joins the outer transaction.
   */
  transaction<T>(work: (tx: Storage) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface NewUser {
  name: string;
  role: UserRole;
}

export interface UserRepository {
  create(user: NewUser): Promise<User>;
  get(id: string): Promise<User | undefined>;
  getByName(name: string): Promise<User | undefined>;
  list(): Promise<User[]>;
  setDelegationPolicy(id: string, policy: DelegationPolicy, whitelist: string[]): Promise<User>;
}

export interface NewApiToken {
  user_id: string;
  name: string;
  prefix: string;
  token_hash: string;
}

export interface TokenRepository {
  create(token: NewApiToken): Promise<ApiToken>;
  /** A live (not revoked) token by the hash of its secret. */
  findActiveByHash(tokenHash: string): Promise<ApiToken | undefined>;
  listForUser(userId: string): Promise<ApiToken[]>;
  /** Revokes one of the user's tokens; false when the user has no such live token. */
  revoke(userId: string, tokenId: string): Promise<boolean>;
  /** Revokes every live token of the user with this name; returns how many. */
  revokeByName(userId: string, name: string): Promise<number>;
  touch(tokenId: string, at: string): Promise<void>;
}

export interface NewAgent {
  slug: string;
  name: string;
  description: string;
  backend: AgentBackend;
  is_subagent: boolean;
  owner_id: string;
  visibility: AgentVisibility;
  config: AgentConfig;
  status: ExpertStatus;
  delegatable: boolean;
  delegation_brief: string | null;
  is_default: boolean;
}

export type AgentPatch = Partial<
  Pick<
    Agent,
    | 'slug'
    | 'name'
    | 'description'
    | 'visibility'
    | 'config'
    | 'status'
    | 'delegatable'
    | 'delegation_brief'
    | 'is_default'
  >
>;

export interface AgentListOptions {
  include_subagents?: boolean;
  /** Include soft-deleted agents (admin tooling); default false. */
  include_deleted?: boolean;
}

export interface AgentRepository {
  create(agent: NewAgent): Promise<Agent>;
  /** By id, deleted ones included: callers decide what a deleted agent means to them. */
  get(id: string): Promise<Agent | undefined>;
  getBySlug(slug: string): Promise<Agent | undefined>;
  update(id: string, patch: AgentPatch): Promise<Agent>;
  softDelete(id: string, at: string): Promise<void>;
  /** Makes `id` the only default agent (clears the flag elsewhere in the same statement group). */
  setDefault(id: string): Promise<void>;
  getDefault(): Promise<Agent | undefined>;
  /**
   * The agents `actor` may use, filtered in SQL: admin, owner, grant holder, or public. Ordered default
   * first, then by name.
   */
  listUsable(actor: Actor, options?: AgentListOptions): Promise<Agent[]>;
  /**
   * Experts `actor` may delegate to, in ONE query enforcing all four conditions of SPEC §6 — the actor
   * has access (admin, owner, grant, public), `delegatable`, `published`, not deleted — plus: not a
   * subagent, not `exclude_id`. Each comes with `brief = coalesce(delegation_brief, description, '')`,
   * computed in SQL. Ordered by slug (display names are not identifiers).
   */
  listDelegatable(actor: Actor, filter?: DelegatableFilter): Promise<DelegatableExpert[]>;
}

export interface DelegatableFilter {
  /**
   * Only experts with one of these ids or slugs. Both missing: every expert passing the conditions;
   * both empty: none.
   */
  ids?: readonly string[];
  slugs?: readonly string[];
  /** The delegating expert: never its own delegate. */
  exclude_id?: string | null;
}

export interface DelegatableExpert {
  agent: Agent;
  brief: string;
}

export interface AccessRepository {
  /** Idempotent: granting again keeps the first grant. */
  grant(userId: string, agentId: string, source: AccessSource): Promise<AgentAccess>;
  revoke(userId: string, agentId: string): Promise<boolean>;
  has(userId: string, agentId: string): Promise<boolean>;
  listForAgent(agentId: string): Promise<AgentAccess[]>;
}

export interface NewProject {
  user_id: string;
  name: string;
  workdir: string;
}

export interface ProjectRepository {
  create(project: NewProject): Promise<Project>;
  get(id: string): Promise<Project | undefined>;
  listForUser(userId: string): Promise<Project[]>;
}

export interface NewConversation {
  user_id: string;
  agent_id: string;
  thread_id: string;
  project_id: string;
  status: ConversationStatus;
  title: string;
  metadata: Record<string, unknown>;
}

export type ConversationPatch = Partial<Pick<Conversation, 'title' | 'status' | 'metadata'>>;

export interface ConversationRepository {
  create(conversation: NewConversation): Promise<Conversation>;
  get(id: string): Promise<Conversation | undefined>;
  getByThread(threadId: string): Promise<Conversation | undefined>;
  /** Newest first. */
  listForUser(userId: string, statuses: ConversationStatus[]): Promise<Conversation[]>;
  update(id: string, patch: ConversationPatch): Promise<Conversation>;
}

export interface MessageRepository {
  /** Appends messages to a thread in one write (a checkpoint); returns them with their sequence numbers. */
  append(threadId: string, runId: string | null, step: number, messages: ModelMessage[]): Promise<ThreadMessage[]>;
  list(threadId: string): Promise<ThreadMessage[]>;
}

export interface NewSubagentThread {
  user_id: string;
  parent_conversation_id: string;
  child_conversation_id: string;
  child_thread_id: string;
  subagent_slug: string;
  created_by_run_id: string;
}

export interface SubagentThreadRepository {
  create(relation: NewSubagentThread): Promise<SubagentThread>;
  get(id: string): Promise<SubagentThread | undefined>;
  getByChildThread(childThreadId: string): Promise<SubagentThread | undefined>;
  listForParent(parentConversationId: string): Promise<SubagentThread[]>;
}

export type NewRun = Omit<
  Run,
  'status' | 'output' | 'error' | 'usage' | 'worker_id' | 'lease_expires_at' | 'attempt' | 'created_at' | 'started_at' | 'finished_at' | 'updated_at'
>;

export type RunPatch = Partial<
  Pick<
    Run,
    'status' | 'output' | 'error' | 'usage' | 'worker_id' | 'lease_expires_at' | 'attempt' | 'started_at' | 'finished_at'
  >
>;

/** The guard of a compare-and-set write: every given field must hold for the write to happen. */
export interface RunExpectation {
  status?: RunStatus[];
  /** `null` means "no worker owns it". */
  worker_id?: string | null;
  /** The lease must still be live at this instant. */
  lease_live_at?: string;
  /** The lease must have ended (or be missing) at this instant: how a reconciler takes over safely. */
  lease_expired_at?: string;
}

export interface RunRepository {
  insert(run: NewRun): Promise<Run>;
  get(id: string): Promise<Run | undefined>;
  /** Request ids are unique per user: another user's run with the same id is never returned. */
  getByRequestId(userId: string, requestId: string): Promise<Run | undefined>;
  getActiveForThread(threadId: string): Promise<Run | undefined>;
  /**
   * Compare-and-set: applies `patch` only if `expect` holds, atomically; returns the new row, or undefined
   * when the guard failed (or the run does not exist). `updated_at` is always refreshed.
   */
  update(id: string, expect: RunExpectation, patch: RunPatch): Promise<Run | undefined>;
  /**
   * The statuses of the run and of every run above it (its creator, the creator's creator, …), the run's
   * own first, read in one statement: what the stop guarantee checks before each call (SPEC §10).
   */
  lineageStatuses(id: string): Promise<RunStatus[]>;
  /** Runs created by `runId` (one level). */
  listChildren(runId: string): Promise<Run[]>;
  listByRoot(rootRunId: string): Promise<Run[]>;
  /** Newest first. */
  listByConversation(conversationId: string): Promise<Run[]>;
  /** Leased runs (`running`, `cancel_requested`) whose lease ended before `now`, plus unowned ones. */
  listExpiredLeases(now: string, limit: number): Promise<Run[]>;
  /** Pending runs created before `before`: the reconciler re-enqueues them in case an enqueue was lost. */
  listStalePending(before: string, limit: number): Promise<Run[]>;
  /** Active runs matching every given filter; `children_only` counts runs created by another run. */
  countActive(filter: { user_id?: string; created_by_run_id?: string; children_only?: boolean }): Promise<number>;
  /**
   * One page of runs matching every given filter, newest first by (created_at, id), each with its agent and
   * how many runs it created. Keyset pagination: `before` is the (created_at, id) of the last row of the
   * previous page.
   */
  listPage(filter: RunListFilter): Promise<RunListEntry[]>;
}

/** Filters of `runs.listPage`; every given field must hold. */
export interface RunListFilter {
  /** Only this user's runs; omitted: everyone's (the caller decides who may ask for that). */
  user_id?: string;
  statuses?: readonly RunStatus[];
  agent_id?: string;
  run_types?: readonly RunType[];
  conversation_id?: string;
  /** created_at >= this ISO instant. */
  created_from?: string;
  /** created_at < this ISO instant. */
  created_to?: string;
  /** Case-insensitive (ASCII) substring of `input.message`; `%` and `_` are literal. */
  search?: string;
  before?: { created_at: string; id: string };
  limit: number;
}

export interface RunListEntry {
  run: Run;
  /** Runs created by this run (one level): its subagents and delegations. */
  child_count: number;
  /** Null when the agent row is gone. */
  agent: { id: string; slug: string; name: string } | null;
}

export interface RunEventRepository {
  /** Appends with the next `seq` of that run (1, 2, 3…), assigned atomically by the store. */
  append(event: NewRunEvent): Promise<RunEvent>;
  /** Events with `seq > afterSeq`, in order, at most `limit`. */
  list(runId: string, afterSeq: number, limit: number): Promise<RunEvent[]>;
  lastSeq(runId: string): Promise<number>;
}

export interface NewToolApproval {
  run_id: string;
  tool_call_id: string;
  tool_name: string;
  args: unknown;
  /** Default `approval`. */
  kind?: HumanInputKind;
}

export interface ApprovalRepository {
  /** Records a pending approval; idempotent on (run_id, tool_call_id), returning the existing row. */
  request(approval: NewToolApproval): Promise<ToolApproval>;
  get(runId: string, toolCallId: string): Promise<ToolApproval | undefined>;
  /** Decides a pending approval (kind `approval`); undefined when it is not pending (already decided, or missing). */
  decide(
    runId: string,
    toolCallId: string,
    status: Exclude<ApprovalStatus, 'pending'>,
    decidedBy: string,
    comment: string | null,
  ): Promise<ToolApproval | undefined>;
  listForRun(runId: string): Promise<ToolApproval[]>;
  /**
   * Records the answers to a pending question (kind `question`) and marks it `answered`; undefined when it
   * is not pending (answered already, or missing). Guarded like `decide`: two racing answers cannot both win.
   */
  answer(runId: string, toolCallId: string, answers: string[], answeredBy: string): Promise<ToolApproval | undefined>;
}

/** Messages sent to a running run (steering), read by its worker between steps. */
export interface RunInboxRepository {
  push(runId: string, message: string): Promise<void>;
  /** Takes every unread message of the run, oldest first, marking them read atomically. */
  take(runId: string): Promise<string[]>;
}

/** What a skill holds: checked by `buildSkillPackage` before it reaches storage. */
export interface SkillContent {
  description: string;
  digest: string;
  total_bytes: number;
  /** Sorted by path. */
  files: SkillFile[];
}

export interface NewSkill extends SkillContent {
  name: string;
  owner_id: string;
  visibility: SkillVisibility;
}

/**
 * Skills and their files (SPEC §9). `skills.name` is unique over live and deleted skills alike:
 * `create` throws `TroupeError('skill_name_taken')` on a duplicate. Every write of a skill and its files is
 * one transaction.
 */
export interface SkillRepository {
  create(skill: NewSkill): Promise<Skill>;
  /** Deleted ones included: callers decide what a deleted skill means to them. */
  get(id: string): Promise<Skill | undefined>;
  getByName(name: string): Promise<Skill | undefined>;
  /** Replaces description and files, and revives a deleted skill; visibility too when given. */
  replaceContent(id: string, content: SkillContent, visibility?: SkillVisibility): Promise<Skill>;
  setVisibility(id: string, visibility: SkillVisibility): Promise<Skill>;
  /** Marks the skill deleted and drops its files; the row (and so the name) stays. */
  softDelete(id: string, at: string): Promise<void>;
  /**
   * Live skills `actor` may use — admin, owner, grant holder, or public — filtered in SQL, ordered by name.
   * With `names`, only those (an empty list matches nothing).
   */
  listUsable(actor: Actor, filter?: { names?: readonly string[] }): Promise<Skill[]>;
  listFiles(skillId: string): Promise<SkillFileInfo[]>;
  /** Every file with its bytes, sorted by path. */
  readFiles(skillId: string): Promise<SkillFile[]>;
  /** Idempotent: granting again keeps the first grant. */
  grant(userId: string, skillId: string): Promise<SkillAccess>;
  revoke(userId: string, skillId: string): Promise<boolean>;
  hasGrant(userId: string, skillId: string): Promise<boolean>;
  listGrants(skillId: string): Promise<SkillAccess[]>;
}

export type NewArtifact = Omit<Artifact, 'id' | 'created_at'>;

export interface ArtifactRepository {
  /**
   * Records the artifacts of one tool call in one write. Idempotent on (run_id, tool_call_id, path): a
   * resumed run that presents the same files again gets the rows recorded the first time. Returns the
   * call's rows in the order given.
   */
  record(artifacts: NewArtifact[]): Promise<Artifact[]>;
  get(id: string): Promise<Artifact | undefined>;
  /** Oldest first. */
  listForConversation(conversationId: string): Promise<Artifact[]>;
}

export type NewAttachment = Omit<Attachment, 'id' | 'created_at'>;

export interface AttachmentRepository {
  create(attachment: NewAttachment): Promise<Attachment>;
  get(id: string): Promise<Attachment | undefined>;
  /** Oldest first. */
  listForConversation(conversationId: string): Promise<Attachment[]>;
}
