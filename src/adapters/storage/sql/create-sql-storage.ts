import { sql, type Kysely } from 'kysely';
import { systemClock } from '../../../core/clock.js';
import type { Clock } from '../../../core/clock.js';
import { TroupeError } from '../../../core/errors.js';
import type { SharedCommitOptions, Storage } from '../../../core/ports/storage.js';
import type { DatabaseSchema } from './database-schema.js';
import { SqlAccessRepository } from './sql-access-repository.js';
import { SqlGrantRepository } from './sql-grant-repository.js';
import { SqlAgentRepository } from './sql-agent-repository.js';
import { SqlApprovalRepository } from './sql-approval-repository.js';
import { SqlRunInboxRepository } from './sql-run-inbox-repository.js';
import { SqlToolCallJournalRepository } from './sql-tool-call-journal-repository.js';
import type { DirectQueryRunner, OpenTransaction, SqlContext, TransactionSource } from './sql-context.js';
import { SqlConversationRepository } from './sql-conversation-repository.js';
import type { SqlDialect } from './sql-dialect.js';
import { SqlMessageRepository } from './sql-message-repository.js';
import { SqlProjectRepository } from './sql-project-repository.js';
import { SqlRunEventRepository } from './sql-run-event-repository.js';
import { SqlRunRepository } from './sql-run-repository.js';
import { SqlSkillRepository } from './sql-skill-repository.js';
import { SqlSubagentThreadRepository } from './sql-subagent-thread-repository.js';
import { SqlTokenRepository } from './sql-token-repository.js';
import { SqlUserRepository } from './sql-user-repository.js';
import { SqlKnowledgeDocumentRepository } from './sql-knowledge-document-repository.js';
import { SqlKnowledgeSourceRepository } from './sql-knowledge-source-repository.js';
import { SqlArtifactRepository } from './sql-artifact-repository.js';
import { SqlAttachmentRepository } from './sql-attachment-repository.js';
import { SqlRunBudgetRepository } from './sql-run-budget-repository.js';
import { SqlRunVerificationRepository } from './sql-run-verification-repository.js';
import { CommitGroup } from './commit-group.js';
import { kyselyTransactions } from './kysely-transactions.js';
import { inOpenTransaction } from './in-open-transaction.js';

export interface SqlStorageOptions {
  /** Source of every timestamp the repositories assign; tests pass a controllable one. */
  clock?: Clock;
  /** Runs before the database is destroyed (an engine's own helpers that hold a connection stop first). */
  beforeClose?: () => Promise<void>;
  /** The engine's fast path for prepared queries (SQLite). */
  direct?: DirectQueryRunner;
  /** The engine's own transactions (SQLite's direct ones, PostgreSQL's pipelined ones); otherwise Kysely's. */
  transactions?: TransactionSource;
}

class SqlStorage implements Storage {
  readonly users;
  readonly tokens;
  readonly agents;
  readonly access;
  readonly projects;
  readonly conversations;
  readonly messages;
  readonly subagentThreads;
  readonly runs;
  readonly events;
  readonly approvals;
  readonly inbox;
  readonly toolCalls;
  readonly skills;
  readonly grants;
  readonly knowledgeSources;
  readonly knowledgeDocuments;
  readonly artifacts;
  readonly attachments;
  readonly budgets;
  readonly verifications;
  #commitGroup: CommitGroup<Storage> | undefined;
  /** This transaction's storage as a work that joined it sees it (`#joined`). */
  #joinedView: SqlStorage | undefined;

  constructor(
    private readonly ctx: SqlContext,
    private readonly closeDatabase: () => Promise<void>,
  ) {
    this.users = new SqlUserRepository(ctx);
    this.tokens = new SqlTokenRepository(ctx);
    this.agents = new SqlAgentRepository(ctx);
    this.access = new SqlAccessRepository(ctx);
    this.projects = new SqlProjectRepository(ctx);
    this.conversations = new SqlConversationRepository(ctx);
    this.messages = new SqlMessageRepository(ctx);
    this.subagentThreads = new SqlSubagentThreadRepository(ctx);
    this.runs = new SqlRunRepository(ctx);
    this.events = new SqlRunEventRepository(ctx);
    this.approvals = new SqlApprovalRepository(ctx);
    this.inbox = new SqlRunInboxRepository(ctx);
    this.toolCalls = new SqlToolCallJournalRepository(ctx);
    this.skills = new SqlSkillRepository(ctx);
    this.grants = new SqlGrantRepository(ctx);
    this.knowledgeSources = new SqlKnowledgeSourceRepository(ctx);
    this.knowledgeDocuments = new SqlKnowledgeDocumentRepository(ctx);
    this.artifacts = new SqlArtifactRepository(ctx);
    this.attachments = new SqlAttachmentRepository(ctx);
    this.budgets = new SqlRunBudgetRepository(ctx);
    this.verifications = new SqlRunVerificationRepository(ctx);
  }

  /**
   * Inside `work`, use only `tx`: on SQLite the one connection belongs to the transaction until it ends,
   * so a call through the outer Storage would wait for it forever.
   */
  async transaction<T>(work: (tx: Storage) => Promise<T>): Promise<T> {
    if (this.ctx.inTransaction) return work(this.#joined());
    const source = this.ctx.transactions;
    if (source === undefined) {
      const open = { now: true };
      try {
        return await this.ctx.db.transaction().execute((trx) =>
          work(
            this.#boundTo(
              () => trx,
              () => open.now,
            ),
          ),
        );
      } finally {
        open.now = false;
      }
    }
    return inOpenTransaction(source, (transaction) => work(this.#bound(transaction)));
  }

  sharedCommitTransaction<T>(
    work: (tx: Storage) => Promise<T>,
    options: SharedCommitOptions = {},
  ): Promise<T> {
    if (this.ctx.inTransaction) return work(this.#joined());
    // PostgreSQL runs concurrent transactions on a pool and groups commits itself.
    if (this.ctx.dialect.name !== 'sqlite') return this.transaction(work);
    this.#commitGroup ??= new CommitGroup<Storage>(
      this.ctx.transactions ?? kyselyTransactions(this.ctx.db),
      (tx) => this.#bound(tx),
    );
    return this.#commitGroup.run(work, options.gather ?? true);
  }

  #bound(transaction: OpenTransaction): SqlStorage {
    return this.#boundTo(
      () => transaction.db,
      () => transaction.open,
      transaction.commitBehind?.bind(transaction),
    );
  }

  /**
   * `open` says whether the transaction still runs: the direct path of a transaction-bound storage stops with
   * it, so a `tx` kept past its commit can never run a statement inside whatever holds the connection next
   * (its other queries fail on the ended transaction).
   */
  #boundTo(
    db: () => Kysely<DatabaseSchema>,
    open: () => boolean,
    commitBehind?: (statements: readonly PromiseLike<unknown>[]) => void,
  ): SqlStorage {
    const direct = this.ctx.direct;
    const bound: DirectQueryRunner | undefined = direct && {
      run: (compiled, parameters, inTransaction) =>
        open() ? direct.run(compiled, parameters, inTransaction) : undefined,
    };
    const { dialect, clock } = this.ctx;
    const ctx: SqlContext = {
      // Asked for only by queries that are not prepared (or a prepared one's first compile).
      get db() {
        return db();
      },
      dialect,
      clock,
      inTransaction: true,
      direct: bound,
      commitBehind,
    };
    return new SqlStorage(ctx, () =>
      Promise.reject(new TroupeError('internal', 'A transaction-bound storage cannot close the database')),
    );
  }

  /**
   * A work that joined an open transaction does not own its end: its `commitBehind` must not commit what the
   * work that opened it still writes after it returns.
   */
  #joined(): SqlStorage {
    if (this.ctx.commitBehind === undefined) return this;
    this.#joinedView ??= new SqlStorage({ ...this.ctx, commitBehind: undefined }, this.closeDatabase);
    return this.#joinedView;
  }

  commitBehind(statements: readonly PromiseLike<unknown>[]): void {
    this.ctx.commitBehind?.(statements);
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.ctx.db);
  }

  close(): Promise<void> {
    return this.closeDatabase();
  }
}

/**
 * The Storage of any engine Kysely drives with this schema. The caller owns migrations (run
 * `migrateToLatest` first) and hands over `db`: `close()` destroys it, once.
 */
export function createSqlStorage(
  db: Kysely<DatabaseSchema>,
  dialect: SqlDialect,
  options: SqlStorageOptions = {},
): Storage {
  let closing: Promise<void> | undefined;
  const ctx: SqlContext = {
    db,
    dialect,
    clock: options.clock ?? systemClock,
    inTransaction: false,
    direct: options.direct,
    transactions: options.transactions,
  };
  const close = async () => {
    try {
      await options.beforeClose?.();
    } finally {
      await db.destroy();
    }
  };
  return new SqlStorage(ctx, () => (closing ??= close()));
}
