import type { ChatMessage } from '../thread/chat-message.js';
import type {
  Agent,
  AgentAccess,
  AccessSource,
  AgentConfig,
  AgentBackend,
  AgentVisibility,
  ExpertStatus,
} from '../records/agent.js';
import type { ApiToken } from '../records/api-token.js';
import type { Conversation, ConversationStatus, SubagentThread } from '../records/conversation.js';
import type { Project } from '../records/project.js';
import type { ThreadMessage } from '../records/thread-message.js';
import type { Run, TokenUsage } from '../records/run.js';
import type { ModelCallUsage } from '../runs/run-usage.js';
import type { KnowledgeDocumentRepository, KnowledgeSourceRepository } from './knowledge-storage.js';
import type { Actor, DelegationPolicy, User, UserRole } from '../records/user.js';
import type { RunBudgetRepository } from './run-budget-repository.js';
import type { GrantRepository } from './grant-repository.js';
import type {
  ApprovalRepository,
  RunEventRepository,
  RunInboxRepository,
  RunRepository,
} from './run-storage.js';
import type { ArtifactRepository, AttachmentRepository, SkillRepository } from './file-storage.js';

export type { GrantableKind, GrantRecords, GrantRepository } from './grant-repository.js';
export type {
  SkillContent,
  NewSkill,
  SkillRepository,
  NewArtifact,
  ArtifactRepository,
  NewAttachment,
  AttachmentRepository,
} from './file-storage.js';
export type {
  NewRun,
  RunPatch,
  RunExpectation,
  RunRepository,
  RunAttemptContext,
  ChildStartAlso,
  ChildStartParent,
  ClaimTerms,
  RunListFilter,
  RunListEntry,
  RunEventRepository,
  RunEventBatch,
  NewToolApproval,
  ApprovalRepository,
  RunInboxRepository,
} from './run-storage.js';

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
export interface SharedCommitOptions {
  /**
   * Wait for the rest of the current event-loop turn before an idle engine starts the shared transaction, so
   * works arriving in one turn from separate sockets (run starts) join it. Default true. False for works that
   * usually come alone (one run's step commits): they start at once, and only what arrives meanwhile waits.
   */
  gather?: boolean;
}

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
  /** Grants on skills and knowledge sources. */
  readonly grants: GrantRepository;
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
  /**
   * Like `transaction`, for short, frequent writes whose callers can wait a little for the commit (run
   * starts, child starts, a run's step checkpoints and its ending). Where the engine has one writer (SQLite),
   * works that arrive while another is running share one COMMIT: each runs in a savepoint of that
   * transaction, so a throw rolls back its own writes only, and each caller resolves once the shared COMMIT
   * has succeeded (or rejects with its failure).
   */
  sharedCommitTransaction<T>(work: (tx: Storage) => Promise<T>, options?: SharedCommitOptions): Promise<T>;
  /**
   * One trivial statement (readiness probes): resolves once the database answered; rejects as any statement
   * would (`storage_unavailable` while PostgreSQL is unreachable).
   */
  ping(): Promise<void>;
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
  /** Subagents only (what a main agent may dispatch to); implies `include_subagents`. */
  subagents_only?: boolean;
  /** Only agents with these slugs; an empty list matches none. */
  slugs?: readonly string[];
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

export interface ConversationWithParts {
  conversation: Conversation;
  agent: Agent | undefined;
  owner: User | undefined;
  project: Project | undefined;
}

export interface ConversationRepository {
  create(conversation: NewConversation): Promise<Conversation>;
  get(id: string): Promise<Conversation | undefined>;
  /**
   * The conversation with its agent, owner and project in one read, each as its repository's `get` returns
   * it (undefined when its row is gone): what a new run of the conversation works with. Undefined for an
   * unknown conversation.
   */
  getWithParts(id: string): Promise<ConversationWithParts | undefined>;
  getByThread(threadId: string): Promise<Conversation | undefined>;
  /** Newest first. */
  listForUser(userId: string, statuses: ConversationStatus[]): Promise<Conversation[]>;
  update(id: string, patch: ConversationPatch): Promise<Conversation>;
}

/** Messages of one step of a run (a checkpoint), in the order they are appended. */
export interface StepMessages {
  step: number;
  messages: readonly ChatMessage[];
  /** When the first message is a model's turn: the usage of the call that produced it, stored with it. */
  usage?: ModelCallUsage | undefined;
}

/** Messages of one run's steps for one thread, as one part of a multi-thread append (`messages.appendBatches`). */
export interface ThreadMessageBatch {
  threadId: string;
  runId: string | null;
  parts: readonly StepMessages[];
}

export interface MessageRepository {
  /**
   * Appends messages to a thread in one write (a checkpoint); returns them with their sequence numbers. The
   * returned `message`s are the ones given (a reader gets their JSON round trip).
   */
  append(
    threadId: string,
    runId: string | null,
    step: number,
    messages: ChatMessage[],
  ): Promise<ThreadMessage[]>;
  /** `append` of several steps' messages (checkpoints written together), in one write, in the order given. */
  appendSteps(
    threadId: string,
    runId: string | null,
    parts: readonly StepMessages[],
  ): Promise<ThreadMessage[]>;
  /**
   * `appendSteps` into several threads in one write (a child start: its parent's checkpoint and the child's
   * first message), each thread at most once; returns each batch's messages.
   */
  appendBatches(batches: readonly ThreadMessageBatch[]): Promise<ThreadMessage[][]>;
  list(threadId: string): Promise<ThreadMessage[]>;
  /**
   * What each run's stored turns settled, over all its attempts (`settledUsage` of their usage): read by the
   * runs' threads in one statement. A run without a settled turn is absent.
   */
  settledUsageOf(runs: readonly Pick<Run, 'id' | 'thread_id'>[]): Promise<Map<string, TokenUsage>>;
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
  /** The relations among `ids` that exist, in no particular order. */
  getMany(ids: readonly string[]): Promise<SubagentThread[]>;
  getByChildThread(childThreadId: string): Promise<SubagentThread | undefined>;
  listForParent(parentConversationId: string): Promise<SubagentThread[]>;
}
