import type {
  ApprovalScope,
  ApprovalStatus,
  HumanInputKind,
  Run,
  RunStatus,
  RunType,
  ToolApproval,
} from '../records/run.js';
import type { NewRunEvent, RunEvent } from '../records/run-event.js';
import type { RunBudget } from '../budgets/budget.js';
import type { Verdict } from '../verification/verification.js';
import type { Agent } from '../records/agent.js';
import type { Conversation, SubagentThread } from '../records/conversation.js';
import type { Project } from '../records/project.js';
import type { User } from '../records/user.js';

/*
 * The run side of the storage port (`storage.ts` re-exports it): runs, their events, human input and the
 * steering inbox. The integrity rules of `storage.ts` hold here too.
 */

export type NewRun = Omit<
  Run,
  | 'status'
  | 'output'
  | 'error'
  | 'usage'
  | 'worker_id'
  | 'lease_expires_at'
  | 'attempt'
  | 'created_at'
  | 'started_at'
  | 'finished_at'
  | 'updated_at'
  | 'forked_from'
> & {
  /** A fork's first run only (docs/effects-and-forks.md#fork); absent is null. */
  forked_from?: Run['forked_from'];
};

export type RunPatch = Partial<
  Pick<
    Run,
    | 'status'
    | 'output'
    | 'error'
    | 'usage'
    | 'worker_id'
    | 'lease_expires_at'
    | 'attempt'
    | 'started_at'
    | 'finished_at'
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

/** What a claim writes: the worker, when its fresh lease expires, and the start instant. */
export type ClaimTerms = readonly [workerId: string, leaseExpiresAt: string, now: string];

export interface RunRepository {
  /**
   * Inserts a `pending` run; with `claim`, a run already claimed, exactly as `claim` would leave it (a child
   * its creator's worker starts at once, `LocalRunStarts`).
   */
  insert(run: NewRun, claim?: ClaimTerms): Promise<Run>;
  get(id: string): Promise<Run | undefined>;
  /** The runs among `ids` that exist, in no particular order (one read for a batch, e.g. awaiting 100 children). */
  getMany(ids: readonly string[]): Promise<Run[]>;
  /** Request ids are unique per user: another user's run with the same id is never returned. */
  getByRequestId(userId: string, requestId: string): Promise<Run | undefined>;
  getActiveForThread(threadId: string): Promise<Run | undefined>;
  /**
   * Compare-and-set: applies `patch` only if `expect` holds, atomically; returns the new row, or undefined
   * when the guard failed (or the run does not exist). `updated_at` is always refreshed. With `orFail`, a failed
   * guard fails the statement itself (`RunExpectationMissed`): inside a transaction whose COMMIT leaves behind
   * it (`Storage.commitBehind`), the database then commits nothing.
   */
  update(
    id: string,
    expect: RunExpectation,
    patch: RunPatch,
    options?: { orFail?: boolean },
  ): Promise<Run | undefined>;
  /**
   * A worker takes a pending, unowned run in one conditional write: `running`, held by `workerId` until
   * `leaseExpiresAt`, its attempt counted and its first start kept. Undefined when the run was not pending
   * (another worker won, or it was cancelled).
   */
  claim(id: string, workerId: string, leaseExpiresAt: string, now: string): Promise<Run | undefined>;
  /**
   * `claim`, and the claimed run's `attemptContext` as it stands at the claim: one statement where the engine
   * can (PostgreSQL), for an attempt that would read its context right after the claim. Undefined, with
   * nothing read, when the claim failed.
   */
  claimWithContext(
    id: string,
    workerId: string,
    leaseExpiresAt: string,
    now: string,
  ): Promise<{ run: Run; context: RunAttemptContext } | undefined>;
  /**
   * Inside the transaction inserting run `id`: every claim of the run (`claim`, `claimWithContext`) from now on
   * waits until this transaction has ended, so the run may be queued before its COMMIT is answered (a claim
   * that then finds no row, the start having rolled back, claims nothing). False, with nothing held, where the
   * engine does not do this (SQLite): queue the run once the transaction committed (docs/scale-out.md, "The run
   * queue").
   */
  holdClaims(id: string): Promise<boolean>;
  /**
   * The statuses of the run and of every run above it (its creator, the creator's creator, …), the run's
   * own first, read in one statement: what the stop guarantee checks before each call (docs/budgets.md).
   */
  lineageStatuses(id: string): Promise<RunStatus[]>;
  /**
   * What an attempt of the run works with, read in one statement: its agent (soft-deleted ones included, as
   * `agents.get` returns them), user, conversation, the conversation's project and the run's budget ledger,
   * each the record its repository's `get` returns, or undefined when there is none (all undefined for an
   * unknown run).
   */
  attemptContext(runId: string): Promise<RunAttemptContext>;
  /** Runs created by `runId` (one level). */
  listChildren(runId: string): Promise<Run[]>;
  /**
   * Runs created by any run of the conversation (one level), oldest first by (created_at, id), in one read:
   * the status panel's children, however many turns started them.
   */
  listChildrenInConversation(conversationId: string): Promise<Run[]>;
  /**
   * The not yet terminal runs below `runId` at any depth, in one read: parents before their children, and
   * siblings oldest first.
   */
  listActiveDescendants(runId: string): Promise<Run[]>;
  listByRoot(rootRunId: string): Promise<Run[]>;
  /** Newest first. */
  listByConversation(conversationId: string): Promise<Run[]>;
  /**
   * What a conversation run's end closes, in one read: the active runs below `run` (when `own`), then the
   * active runs below the run started just before it in its conversation (same order as
   * `listByConversation`), whose background children an earlier turn kept alive. Each part is ordered as
   * `listActiveDescendants` orders.
   */
  listActiveBelowTurn(
    run: Pick<Run, 'id' | 'conversation_id' | 'created_at'>,
    options: { own: boolean },
  ): Promise<Run[]>;
  /** Leased runs (`running`, `cancel_requested`) whose lease ended before `now`, plus unowned ones. */
  listExpiredLeases(now: string, limit: number): Promise<Run[]>;
  /** Pending runs created before `before`: the reconciler re-enqueues them in case an enqueue was lost. */
  listStalePending(before: string, limit: number): Promise<Run[]>;
  /**
   * A run as a child start reads it, in one statement: the run, the two child quotas (its active children,
   * `ofRun`, and the active runs created by any run of `userId`, `ofUser`), whether a cancel is committed
   * on any run above it (`stoppedAbove`, docs/budgets.md), its conversation with that conversation's project, the
   * user `userId`, and what `also` asks for. Undefined for an unknown run.
   */
  getWithActiveChildren(
    id: string,
    userId: string,
    also?: ChildStartAlso,
  ): Promise<ChildStartParent | undefined>;
  /**
   * One page of runs matching every given filter, newest first by (created_at, id), each with its agent and
   * how many runs it created. Keyset pagination: `before` is the (created_at, id) of the last row of the
   * previous page.
   */
  listPage(filter: RunListFilter): Promise<RunListEntry[]>;
}

export interface RunAttemptContext {
  agent: Agent | undefined;
  user: User | undefined;
  conversation: Conversation | undefined;
  project: Project | undefined;
  ledger: RunBudget | undefined;
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
  /** true: only runs a fork started; false: none of them. */
  forked?: boolean;
  /** Runs judged with one of these verdicts (docs/verified-delegation.md). */
  verdicts?: readonly Verdict[];
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

/** What else a child start's parent read fetches in the same statement. */
export interface ChildStartAlso {
  /** An agent's row as it is now, deleted or not (the child's: its first attempt's context). */
  agentId?: string | undefined;
  /** A child thread whose subagent relation the start needs (a continued thread, a replayed start). */
  childThreadId?: string | undefined;
}

/** What `runs.getWithActiveChildren` reads for a child start. */
export interface ChildStartParent {
  run: Run;
  activeChildren: { ofRun: number; ofUser: number };
  stoppedAbove: boolean;
  /** The run's conversation, and that conversation's project; undefined when the row is gone. */
  conversation: Conversation | undefined;
  project: Project | undefined;
  /** The user the start was asked for, as the row is now. */
  user: User | undefined;
  /** With `also.agentId`: that agent's row, undefined when none has the id. Absent when not asked. */
  agent?: Agent | undefined;
  /** With `also.childThreadId`: that thread's relation, null when it has none. Absent when not asked. */
  relation?: SubagentThread | null;
}

/** The events of one run, as one part of a multi-run append (`events.appendBatches`). */
export interface RunEventBatch {
  run_id: string;
  events: Omit<NewRunEvent, 'run_id'>[];
  /**
   * Appended only while the run has not ended, checked in the same statement: a closed stream (after its
   * `end`) never gets another event, with no window between a status read and the insert. The batch of an
   * ended (or unknown) run adds nothing.
   */
  whileActive?: boolean;
}

export interface RunEventRepository {
  /** Appends with the next `seq` of that run (1, 2, 3…), assigned atomically by the store. */
  append(event: NewRunEvent): Promise<RunEvent>;
  /**
   * Appends several events of ONE run, in order, with consecutive `seq`s: one statement, so a step's events
   * cost one write. Returns them as `append` would have, in the same order.
   */
  appendMany(runId: string, events: Omit<NewRunEvent, 'run_id'>[]): Promise<RunEvent[]>;
  /**
   * Appends batches of several runs (each run at most once) in ONE statement, each numbered on from its own
   * run's highest `seq`: a child's status change and its parent's `subagent_update` are one write, atomic
   * without a transaction. Returns each batch's events in order, `[]` for a guarded batch of an ended run.
   */
  appendBatches(batches: readonly RunEventBatch[]): Promise<RunEvent[][]>;
  /** Events with `seq > afterSeq`, in order, at most `limit`. */
  list(runId: string, afterSeq: number, limit: number): Promise<RunEvent[]>;
  /** Every event of `runId` whose type is one of `types`, in order: what evidence reads of a child (one query). */
  listOfTypes(runId: string, types: readonly RunEvent['type'][]): Promise<RunEvent[]>;
  lastSeq(runId: string): Promise<number>;
  /**
   * The last `perRun` events of each run (all of a run with fewer), ordered by run id then `seq`, in as few
   * statements as the engine's parameter limit allows.
   */
  listLatest(runIds: readonly string[], perRun: number): Promise<RunEvent[]>;
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
  /**
   * Decides a pending approval (kind `approval`); undefined when it is not pending (already decided, or
   * missing). `scope` `run` (an approval only) makes it cover the tool's later calls in the run.
   */
  decide(
    runId: string,
    toolCallId: string,
    status: Exclude<ApprovalStatus, 'pending'>,
    decidedBy: string,
    comment: string | null,
    scope?: ApprovalScope,
  ): Promise<ToolApproval | undefined>;
  /** The decision that approved `toolName` for the rest of the run, if one did. */
  runWideApproval(runId: string, toolName: string): Promise<ToolApproval | undefined>;
  listForRun(runId: string): Promise<ToolApproval[]>;
  /**
   * Records the answers to a pending question (kind `question`) and marks it `answered`; undefined when it
   * is not pending (answered already, or missing). Guarded like `decide`: two racing answers cannot both win.
   */
  answer(
    runId: string,
    toolCallId: string,
    answers: string[],
    answeredBy: string,
  ): Promise<ToolApproval | undefined>;
}

/** Messages sent to a running run (steering), read by its worker between steps. */
export interface RunInboxRepository {
  push(runId: string, message: string): Promise<void>;
  /** Takes every unread message of the run, oldest first, marking them read atomically. */
  take(runId: string): Promise<string[]>;
}

/**
 * The tool-call journal's `started` marks (docs/effects-and-forks.md#the-journal): written, and committed, just
 * before an `external` call runs; its result in the thread is its `finished` mark. A resumed run does not run
 * again a call that started and has no result.
 */
export interface ToolCallJournalRepository {
  /** Records that the call starts now; a second mark of the same call is a no-op. */
  markStarted(runId: string, toolCallId: string): Promise<void>;
  /** Which of these calls of the run have a `started` mark. */
  startedAmong(runId: string, toolCallIds: readonly string[]): Promise<Set<string>>;
}
