import type { RunLimits } from '../../../config.js';
import { isTroupeError } from '../../../core/errors.js';
import { childRunRequestId, newRunId } from '../../../core/ids.js';
import type { EventBus } from '../../../core/ports/event-bus.js';
import type { RunQueue } from '../../../core/ports/run-queue.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Agent } from '../../../core/records/agent.js';
import type { Conversation, SubagentThread } from '../../../core/records/conversation.js';
import type { Run, RunChannel } from '../../../core/records/run.js';
import type { RunEvent } from '../../../core/records/run-event.js';
import { buildNewRun } from '../../../core/runs/build-new-run.js';
import { depthRefusal, quotaRefusal } from '../../../core/runs/child-run-limits.js';
import { parentRefusal } from '../../../core/runs/child-run-parent.js';
import { isOwnedChild, type ChildRunKind } from '../../../core/runs/lineage.js';
import { effectiveLimits } from '../../agents/agent-limits.js';
import { appendSubagentUpdate } from '../children/publish-subagent-update.js';
import { publishQuietly, SHARED_COMMIT } from '../../events/run-emitter.js';
import type { AdoptCheckpoint } from '../../../core/tools/adopt-checkpoint.js';
import { traceCarrier } from '../../../core/trace/trace-carrier.js';
import { isRefused, refused, REQUEST_ID_CONFLICT, type Refused } from './child-run-refusal.js';
import { startRaceWinner } from './start-race-winner.js';
import type { RunHandoffs } from './run-handoffs.js';
import type { LocalRunStarts, RunReservation } from './local-run-starts.js';
import type { ThreadMessage } from '../../../core/records/thread-message.js';
import { openRootBudget, reserveChildBudget } from '../../budgets/open-run-budget.js';
import type { BudgetLimits } from '../../../core/budgets/budget.js';
import type { RunContext } from '../execute/load-run-context.js';
import { firstAttemptContext } from './first-attempt-context.js';

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
  /** The conversation's row, when the start created it. */
  created?: Conversation;
  relation?: SubagentThread;
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
   * says (yuxi §5).
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
  /** The budget the start asks for (SPEC §10): carved from the parent's, or narrowing the agent's at the top. */
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

/**
 * Starts a child run (subagent, delegation) in ONE transaction: parent (and the stop guarantee above it),
 * replay, agent, depth, chain rule, quotas, then the child's conversation (and subagent thread relation), its
 * run row and its first message exist together or not at all, with the creator's held step checkpoint when
 * it hands one over (`adoptCheckpoint`). Each row is read once. After the commit the run is started or
 * enqueued and the parent's stream hears of it. A refusal is a result; two identical starts racing end with
 * one run, which both return.
 */
export async function startChildRun(deps: ChildRunDeps, spec: ChildRunSpec): Promise<ChildRunStart> {
  const { storage } = deps;
  // Read outside the transaction: its callback may run in another async context.
  const trace = traceCarrier();
  let threadId: string | undefined;
  let requestId: string | undefined;
  let announced: RunEvent[] = [];
  let appended: ThreadMessage[] = [];
  let reservation: RunReservation | undefined;
  let context: RunContext | undefined;
  // Taken before the transaction begins: a second start of the same step waits for this one's commit
  // without holding a transaction of its own.
  const adopted = await spec.adoptCheckpoint?.();
  // What of the adopted checkpoint the start wrote with its own rows.
  let checkpointMessages = false;
  let checkpointed: RunEvent[] | undefined;
  try {
    const outcome = await storage.sharedCommitTransaction(async (tx): Promise<ChildRunStart> => {
      const started = await startIn(tx);
      // A start that creates nothing still commits the checkpoint it took.
      if (adopted && !checkpointMessages) await tx.messages.appendBatches([adopted.messages]);
      if (adopted && !checkpointed) [checkpointed] = await tx.events.appendBatches([adopted.events]);
      return started;
    }, SHARED_COMMIT);
    await adopted?.settle(checkpointed ?? []);
    // A replay is answered as such whatever refused it after the parent's checks (a quota its own run fills).
    if (outcome.kind === 'refused' && requestId !== undefined) {
      const replay = await storage.runs.getByRequestId(spec.userId, requestId);
      if (replay) return await replayed(storage, spec, replay);
    }
    if (outcome.kind === 'started') {
      for (const event of announced) await publishQuietly(deps.bus, event);
      deps.handoffs?.offer(outcome.run.id, appended, context);
      if (outcome.run.status === 'running' && reservation) reservation.start(outcome.run);
      else await deps.queue.enqueue(outcome.run.id);
    }
    return outcome;
  } catch (error) {
    // Rolled back with the start: the checkpoint is the creating run's to write again.
    await adopted?.settle(undefined);
    // A continued thread that already has an active run: the caller says `busy`, nothing is queued behind it.
    if (isTroupeError(error, 'run_busy') && threadId !== undefined) {
      return { kind: 'busy', threadId, activeRun: await storage.runs.getActiveForThread(threadId) };
    }
    const winner = await startRaceWinner(storage, error, spec.userId, requestId);
    if (!winner) throw error;
    return replayed(storage, spec, winner);
  } finally {
    // A start that created no run (refused, replayed, failed) gives the slot back; a started one kept it.
    reservation?.release();
  }

  /**
   * The transaction's checks, then the child's rows, with the adopted checkpoint's messages and events in the
   * same inserts as the child's own.
   */
  async function startIn(tx: Storage): Promise<ChildRunStart> {
    // The parent with its child quotas in one read. On SQLite the transaction holds the write lock, so the
    // counts cannot move before the insert; on PostgreSQL, reading them a few statements later would not
    // close the window between the count and the insert either.
    const also = spec.readAlso;
    const read =
      spec.parentRunId === undefined
        ? undefined
        : await tx.runs.getWithActiveChildren(spec.parentRunId, spec.userId, {
            agentId: also?.childAgentId,
            childThreadId: also?.childThreadId,
          });
    const parent = read?.run;
    const parentRefused =
      spec.parentRunId === undefined
        ? undefined
        : parentRefusal(spec.kind, parent, spec.userId, {
            stoppedAbove: read?.stoppedAbove === true,
            byToolCall: spec.toolCallId !== undefined,
          });
    if (parentRefused !== undefined) return refused(parentRefused);
    threadId = spec.threadId(parent);
    requestId =
      parent && spec.toolCallId !== undefined
        ? childRunRequestId(parent.id, spec.requestScope(threadId), spec.toolCallId)
        : undefined;
    // No look-up of the request id first: a new run's insert proves it unused (a unique key). A replay (a
    // resumed parent calling its tools again) fails that insert, or is refused before it, and is answered
    // after the transaction.

    const limitsAgentId = parent?.agent_id ?? spec.limitsAgentId;
    const limitsAgent =
      limitsAgentId === undefined
        ? undefined
        : spec.creator?.agent?.id === limitsAgentId
          ? spec.creator.agent
          : await tx.agents.get(limitsAgentId);
    const scope: ChildRunScope = {
      tx,
      parent,
      parentConversation: read?.conversation,
      relationOf: async (id) =>
        read?.relation !== undefined && id === also?.childThreadId
          ? (read.relation ?? undefined)
          : tx.subagentThreads.getByChildThread(id),
      threadId,
      limits: effectiveLimits(deps.limits, limitsAgent?.config ?? {}),
    };
    const agent = await spec.agent(scope);
    if (isRefused(agent)) return agent;
    const ruled = depthRefusal(spec.kind, parent, scope.limits) ?? (await spec.verify?.(scope, agent));
    if (ruled !== undefined) return refused(ruled);
    if (read) {
      const overQuota = quotaRefusal(spec.kind, read.activeChildren, scope.limits);
      if (overQuota !== undefined) return refused(overQuota);
    }
    const ledger = parent
      ? await reserveChildBudget(tx, {
          parentRunId: parent.id,
          parentHasLedger: spec.creator?.hasLedger,
          requested: spec.budget,
          agentBudget: agent.config.budget,
          share: scope.limits.childBudgetShare,
          now: new Date(),
        })
      : undefined;
    if (ledger && 'refused' in ledger) return refused(ledger.refused, ledger.refusal);
    const home = await spec.home(scope, agent);
    if (isRefused(home)) return home;

    const runId = spec.runId ?? newRunId();
    // A free slot of this process's worker: the child is inserted claimed and executed once the transaction
    // committed, with no queue hop and no claim of its own. Taken only now, when nothing refused the start.
    if (spec.awaited === true) reservation ??= deps.localStarts?.reserve();
    const run = await tx.runs.insert(
      buildNewRun({
        id: runId,
        run_type: spec.kind,
        channel: spec.channel,
        user_id: spec.userId,
        agent,
        thread_id: threadId,
        conversation_id: home.conversationId,
        parent,
        request_id: requestId,
        fallback_model: spec.inheritsParentModel && parent ? parent.model_spec : deps.defaultModel,
        subagent_thread_relation_id: home.relation?.id ?? null,
        input: {
          message: spec.message,
          ...(spec.toolCallId === undefined ? {} : { parent_tool_call_id: spec.toolCallId }),
          ...spec.input(agent),
          // Status updates on the parent's stream name the child without reading its agent each time.
          agent_slug: agent.slug,
          agent_name: agent.name,
          ...trace,
        },
      }),
      reservation?.claim,
    );
    const opened = ledger
      ? await ledger.open(runId)
      : await openRootBudget(tx, runId, agent.config.budget, spec.budget, new Date());
    context = firstAttemptContext(read, run, home.created, opened);
    // The child's first message, and the creator's checkpoint it took, in one insert.
    const first = {
      threadId,
      runId,
      parts: [{ step: 0, messages: [{ role: 'user' as const, content: spec.message }] }],
    };
    appended = (await tx.messages.appendBatches(adopted ? [adopted.messages, first] : [first])).at(-1) ?? [];
    checkpointMessages = adopted !== undefined;
    // The parent's stream hears both changes, `pending` then `running`, in one insert, after the checkpoint.
    const updates = await appendSubagentUpdate(
      tx,
      run.status === 'running' ? [pendingStateOf(run), run] : [run],
      { childAgent: agent, parent },
      adopted?.events.events,
    );
    const held = adopted?.events.events.length ?? 0;
    if (adopted) checkpointed = updates.slice(0, held);
    announced = updates.slice(held);
    return { kind: 'started', run, relation: home.relation };
  }
}

/** A run inserted claimed, as it would have been before its claim: what the parent's stream hears first. */
function pendingStateOf(run: Run): Run {
  return { ...run, status: 'pending', worker_id: null, lease_expires_at: null, attempt: 0, started_at: null };
}

/** A run already started under this request id: the same start replayed, if it is this parent's child. */
async function replayed(reader: Storage, spec: ChildRunSpec, run: Run): Promise<ChildRunStart> {
  const relation = run.subagent_thread_relation_id
    ? await reader.subagentThreads.get(run.subagent_thread_relation_id)
    : undefined;
  const owned =
    spec.parentRunId !== undefined &&
    isOwnedChild(run, { id: spec.parentRunId, user_id: spec.userId }) &&
    run.run_type === spec.kind &&
    (run.subagent_thread_relation_id === null || relation !== undefined);
  return owned ? { kind: 'existing', run, relation } : refused(REQUEST_ID_CONFLICT);
}
