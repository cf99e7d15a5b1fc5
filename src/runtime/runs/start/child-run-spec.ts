import type { RunLimits } from '../../../run-limits.js';
import type { BudgetLimits } from '../../../core/budgets/budget.js';
import type { EventBus } from '../../../core/ports/event-bus.js';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Agent } from '../../../core/records/agent.js';
import type { Conversation, SubagentThread } from '../../../core/records/conversation.js';
import type { Run, RunChannel } from '../../../core/records/run.js';
import type { ChildRunKind } from '../../../core/runs/lineage.js';
import type { AdoptCheckpoint } from '../../../core/tools/adopt-checkpoint.js';
import type { Refused } from './child-run-refusal.js';
import type { LocalRunStarts } from './local-run-starts.js';
import type { RunHandoffs } from './run-handoffs.js';

export interface ChildRunDeps {
  storage: Storage;
  bus: EventBus;
  queue: RunQueue;
  /** The server's limits; the creating agent's own narrow them. */
  limits: RunLimits;
  /** For a child agent whose config names no model. */
  defaultModel: string;
  /** Where a new child thread's first message is handed to this process's executor (`RunHandoffs`). */
  handoffs?: RunHandoffs | undefined;
  /** This process's executor, when it has a free slot for the child at once (`LocalRunStarts`). */
  localStarts?: LocalRunStarts | undefined;
}

/**
 * What the creating run's attempt loaded, handed to the start so it does not read it again. Each is a fact
 * that holds for the run's whole life: its agent as the attempt plays it, and whether it has a budget ledger
 * (created with its run, never removed).
 */
export interface CreatorKnown {
  agent?: Agent | undefined;
  hasLedger?: boolean | undefined;
}

/** What the start's transaction has read when a hook of the kind runs. Hooks read and write through `tx` only. */
export interface ChildRunScope {
  tx: Storage;
  /** The creating run, read once in this transaction. */
  parent: Run | undefined;
  /** The creating run's conversation, read with it. Undefined without a parent, or when the row is gone. */
  parentConversation: Conversation | undefined;
  /**
   * The subagent relation of the child's thread, if it has one: read with the parent when the spec named the
   * thread beforehand (`childThreadId`), else here.
   */
  relationOf: (threadId: string) => Promise<SubagentThread | undefined>;
  /** The limits the creating agent works under. */
  limits: RunLimits;
  threadId: string;
}

/** Where the child runs: a conversation created now, or the one of a continued subagent thread. */
export interface ChildHome {
  conversationId: string;
  /** The subagent thread relation's id, when the child has one. */
  relationId?: string;
  /**
   * The conversation's row when the start created it, and the relation. A home the start writes returns before
   * its inserts answered, so the child's run row leaves with them (docs/scale-out.md, "What scales how"); they
   * are awaited with it.
   */
  rows: Promise<{ created?: Conversation; relation?: SubagentThread }>;
}

/** One kind of child run, as `startChildRun` needs it: data, plus hooks for what only the kind knows. */
export interface ChildRunSpec {
  kind: ChildRunKind;
  /** The user the child runs as: always the creating run's. */
  userId: string;
  /** The creating run; none only for a top-level `POST /api/delegate`. */
  parentRunId: string | undefined;
  /** The tool call that starts the child: a replay of it answers with the run it started. */
  toolCallId: string | undefined;
  /** Without a parent: the agent whose limits apply (the caller's conversation's expert). */
  limitsAgentId?: string | undefined;
  /**
   * What the creating run's attempt loaded: its agent is used for the limits when it is the one the start
   * would read, and a creator known to have no ledger saves reading it.
   */
  creator?: CreatorKnown | undefined;
  channel: RunChannel;
  /** The task, trimmed: the child's first message. */
  message: string;
  /** The child's thread; a subagent's is derived from the parent's, so a replay maps to the same one. */
  threadId(parent: Run | undefined): string;
  /**
   * Read with the parent, in its one statement (`runs.getWithActiveChildren`): the relation of the thread
   * `threadId` will return, when the caller knows it beforehand, and the agent the child will run as, when
   * known beforehand. That agent's row, read in the transaction that creates the child, is its first
   * attempt's (`RunHandoffs`), as fresh as a read at its claim.
   */
  readAlso?: { childThreadId?: string | undefined; childAgentId?: string | undefined } | undefined;
  /** The id of the run this start creates, when the caller made it first (to watch it); a replay has its own. */
  runId?: string | undefined;
  /**
   * The creator waits for the child from its start (a blocking `task` or `delegate`): the child may run at once
   * in a free slot of this process (`LocalRunStarts`). A background start is queued, `pending` as its payload
   * says (docs/subagents.md#the-child-run).
   */
  awaited?: boolean | undefined;
  /** What tells this parent's starts apart beside the tool call (see `childRunRequestId`). */
  requestScope(threadId: string): string;
  /** The agent that runs the child, or the kind's refusal. Checked before the depth limit. */
  agent(scope: ChildRunScope): Promise<Agent | Refused>;
  /** The kind's own rule on the chain, checked after the depth limit (delegation: no cycles). */
  verify?(scope: ChildRunScope, agent: Agent): Promise<string | undefined>;
  /** The conversation the child runs in, created or found here; checked after the quotas. */
  home(scope: ChildRunScope, agent: Agent): Promise<ChildHome | Refused>;
  /** Fields of the run's `input` besides the message, the parent tool call and the trace. */
  input(agent: Agent): Record<string, unknown>;
  /** Without a model of its own the child plays on the parent's (inline specs) instead of the server default. */
  inheritsParentModel?: boolean;
  /** The budget the start asks for (docs/budgets.md): carved from the parent's, or narrowing the agent's at the top. */
  budget?: BudgetLimits | undefined;
  /**
   * The creating run's held step checkpoint (`ToolContext.adoptCheckpoint`): written in the start's
   * transaction, its events leading the parent's `subagent_update`s, so the model's turn and the child it
   * asked for commit together.
   */
  adoptCheckpoint?: AdoptCheckpoint | undefined;
}

export type ChildRunStart =
  | { kind: 'started' | 'existing'; run: Run; relation: SubagentThread | undefined }
  | { kind: 'busy'; threadId: string; activeRun: Run | undefined }
  | Refused;
