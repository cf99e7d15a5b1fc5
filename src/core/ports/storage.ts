import type { KnowledgeDocumentRepository, KnowledgeSourceRepository } from './knowledge-storage.js';
import type { RunBudgetRepository } from './run-budget-repository.js';
import type { RunVerificationRepository } from './run-verification-repository.js';
import type { GrantRepository } from './grant-repository.js';
import type {
  ApprovalRepository,
  RunEventRepository,
  RunInboxRepository,
  RunRepository,
  ToolCallJournalRepository,
} from './run-storage.js';
import type { ArtifactRepository, AttachmentRepository, SkillRepository } from './file-storage.js';
import type { AccessRepository, AgentRepository } from './agent-storage.js';
import type {
  ConversationRepository,
  MessageRepository,
  ProjectRepository,
  SubagentThreadRepository,
} from './conversation-storage.js';
import type { TokenRepository, UserRepository } from './user-storage.js';

export type { NewUser, UserRepository, NewApiToken, TokenRepository } from './user-storage.js';
export type {
  NewAgent,
  AgentPatch,
  AgentListOptions,
  AgentRepository,
  DelegatableFilter,
  DelegatableExpert,
  AccessRepository,
} from './agent-storage.js';
export type {
  NewProject,
  ProjectRepository,
  NewConversation,
  ConversationPatch,
  ConversationWithParts,
  ConversationRepository,
  StepMessages,
  ThreadMessageBatch,
  MessageRepository,
  NewSubagentThread,
  SubagentThreadRepository,
} from './conversation-storage.js';
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
  ToolCallJournalRepository,
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
  /** `started` marks of external tool calls (docs/effects-and-forks.md#the-journal). */
  readonly toolCalls: ToolCallJournalRepository;
  readonly skills: SkillRepository;
  /** Grants on skills and knowledge sources. */
  readonly grants: GrantRepository;
  readonly knowledgeSources: KnowledgeSourceRepository;
  readonly knowledgeDocuments: KnowledgeDocumentRepository;
  readonly artifacts: ArtifactRepository;
  readonly attachments: AttachmentRepository;
  readonly budgets: RunBudgetRepository;
  /** Verdicts on child results (docs/verified-delegation.md). */
  readonly verifications: RunVerificationRepository;
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
   * Inside a transaction: `statements` are its last ones, all started, and from here on only the database
   * refuses anything (a statement that fails), never the work's own code. On PostgreSQL the COMMIT is then
   * written behind them, in the same write, without waiting for their answers (one round trip less); a
   * statement started later is refused. Outside a transaction, and on SQLite, nothing changes. A statement
   * that failed before the turn of the event loop ended (a check in code) keeps the COMMIT from leaving.
   * docs/scale-out.md, "What scales how".
   */
  commitBehind(statements: readonly PromiseLike<unknown>[]): void;
  /**
   * One trivial statement (readiness probes): resolves once the database answered; rejects as any statement
   * would (`storage_unavailable` while PostgreSQL is unreachable).
   */
  ping(): Promise<void>;
  close(): Promise<void>;
}
