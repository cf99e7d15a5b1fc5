import { settleInOrder } from '../../core/settle-in-order.js';
import { TroupeError, isTroupeError } from '../../core/errors.js';
import { newRunId } from '../../core/ids.js';
import { buildNewRun } from '../../core/runs/build-new-run.js';
import type { EventBus } from '../../core/ports/event-bus.js';
import type { RunQueue } from '../../core/ports/run-queue.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Run, RunChannel, RunView } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import { visibleRun as visibleTo } from '../../core/runs/visible-run.js';
import { canUseAgent, grantDecides } from '../../core/agent-access-policy.js';
import { CANCELLED } from './cancel/request-cancel.js';
import type { RunEndings } from './run-endings.js';
import type {
  AwaitedRun,
  PostMessageInput,
  RunResult,
  RunServiceApi,
  StartedRun,
} from './run-service-api.js';
import { streamRunEvents, type RunEventStream } from '../events/stream-run-events.js';
import { awaitTerminal } from './wait/await-terminal.js';
import { listChildRuns } from './children/list-child-runs.js';
import { getReadableConversation } from '../conversations/readable-conversation.js';
import { ownActiveConversation } from '../../core/conversations/own-active-conversation.js';
import { answerRunQuestion, listRunQuestions } from './human-input/run-questions.js';
import { decideRunApproval } from './human-input/decide-run-approval.js';
import { resolveMessageAttachments } from '../attachments/resolve-message-attachments.js';
import { messageWithAttachments } from '../../core/files/message-with-attachments.js';
import {
  conversationTitle,
  DEFAULT_CONVERSATION_TITLE,
} from '../../core/conversations/conversation-title.js';
import { startRaceWinner } from './start/start-race-winner.js';
import { openRootBudget } from '../budgets/open-run-budget.js';
import type { RunHandoffs } from './start/run-handoffs.js';
import type { RequestArrivals } from './start/request-arrivals.js';
import type { RunViews } from './inspect/run-views.js';
import { inspectRunStep } from './inspect/inspect-run-step.js';
import type { AnyTroupeTool } from '../../core/tools/troupe-tool.js';

export interface RunServiceDeps {
  storage: Storage;
  bus: EventBus;
  queue: RunQueue;
  endings: RunEndings;
  defaultModel: string;
  /** Where a new chat's first message is handed to this process's executor (`RunHandoffs`). */
  handoffs?: RunHandoffs;
  /** The client requests of this turn: in a burst a run start gathers the others' into its COMMIT. */
  requests?: RequestArrivals;
  /** How runs are shown: live usage, a lost worker. */
  views: RunViews;
  /** The built-in tools: what a run's agent selects from them is shown when a call is inspected. */
  catalogue?: readonly AnyTroupeTool[];
}

export type RunService = RunServiceApi;

export function createRunService(deps: RunServiceDeps): RunService {
  const { storage, bus, queue, views } = deps;

  async function visibleRun(actor: Actor, runId: string): Promise<Run> {
    return visibleTo(actor, runId, await storage.runs.get(runId));
  }

  async function postMessage(
    actor: Actor,
    conversationId: string,
    input: PostMessageInput,
  ): Promise<StartedRun> {
    const content = input.content.trim();
    if (content === '') throw new TroupeError('validation_failed', 'content must not be empty');
    const channel: RunChannel = input.channel ?? 'api';
    try {
      // Run starts are short writes that arrive together under load: they may share a COMMIT (SQLite). A start
      // gathers only in a burst of requests; a lone one would only wait for the turn.
      const gather = deps.requests?.inBurst ?? false;
      // The run row leaves with the writes that follow it (one round trip on PostgreSQL: docs/scale-out.md, "What
      // scales how"). A row the database refuses (a busy thread, a replay racing its original) aborts those
      // writes with it on PostgreSQL, and the look-up that names the refusal cannot run in an aborted
      // transaction: a transaction whose writes failed is run again with the row written alone first, whose
      // failure is the one reported.
      const progress = { writesFailed: false };
      const start = (rowAlone: boolean) =>
        storage.sharedCommitTransaction(
          async (tx) => {
            const runId = newRunId();
            // A process that executes no runs hands none over: it queues the run with the COMMIT, when the
            // database makes the run's claims wait for this transaction (taken with the first read, so before
            // anything is queued; docs/scale-out.md, "The run queue").
            const holding = deps.handoffs ? undefined : tx.runs.holdClaims(runId);
            holding?.catch(() => undefined);
            // The conversation with its agent, owner and project in one read; the agent is checked once the request
            // is no replay.
            const read = await tx.conversations.getWithParts(conversationId);
            const conversation = ownActiveConversation(actor, conversationId, read?.conversation, 'messages');
            // A retry is looked up first, unlike a child start's (startChildRun): clients retry often, and a retry
            // found by the insert's conflict cost 45 % more CPU (0.49 → 0.70 ms per HTTP replay) for 2 % on new runs.
            if (input.request_id !== undefined) {
              const replay = await tx.runs.getByRequestId(actor.id, input.request_id);
              if (replay) return { replay: resolveReplay(actor, replay, conversationId), created: replay };
            }
            const agent = read?.agent;
            const hasGrant =
              agent !== undefined && grantDecides(actor, agent) && (await tx.access.has(actor.id, agent.id));
            if (!agent || !canUseAgent(actor, agent, hasGrant)) {
              throw new TroupeError(
                'agent_not_found',
                'The agent of this conversation is no longer available',
              );
            }
            const attached = await resolveMessageAttachments(tx, conversation.id, input.attachments ?? []);
            const message = messageWithAttachments(content, attached);
            const row = buildNewRun({
              id: runId,
              run_type: 'chat',
              channel,
              user_id: actor.id,
              agent,
              thread_id: conversation.thread_id,
              conversation_id: conversation.id,
              parent: undefined,
              request_id: input.request_id,
              fallback_model: deps.defaultModel,
              input: {
                message,
                ...(attached.length > 0 ? { attachments: attached.map((attachment) => attachment.id) } : {}),
                ...(input.traceparent !== undefined ? { traceparent: input.traceparent } : {}),
                ...(input.caller !== undefined ? { caller: input.caller } : {}),
              },
            });
            const early = (await holding) === true;
            const inserted = rowAlone ? await tx.runs.insert(row) : tx.runs.insert(row);
            // The run row, its ledger, its first message and the conversation's title, written together. A
            // conversation nobody named takes its title from this message, whoever started it: the console, the
            // API, the CLI, the OpenAI-compatible and A2A endpoints.
            const writes = [
              inserted,
              openRootBudget(tx, runId, agent.config.budget, input.budget, new Date()),
              tx.messages.append(conversation.thread_id, runId, 0, [{ role: 'user', content: message }]),
              conversation.title === DEFAULT_CONVERSATION_TITLE
                ? tx.conversations.update(conversation.id, { title: conversationTitle(content) })
                : conversation,
            ] as const;
            // The last statements: the COMMIT leaves with them. A row the database refuses is not inserted, so
            // its first message fails its foreign key on the server and nothing commits; the look-up naming the
            // refusal comes too late for this transaction, which runs again with the row alone (above).
            tx.commitBehind(writes.map((write) => Promise.resolve(write)));
            const queued = early ? queue.enqueue(runId) : undefined;
            queued?.catch(() => undefined);
            const [created, ledger, appended, titled] = await settleInOrder(writes).catch(
              (error: unknown) => {
                // Nothing of this transaction commits: it may run again (a COMMIT that failed may not).
                progress.writesFailed = !rowAlone && !isTroupeError(error, 'run_busy');
                throw error;
              },
            );
            // Every part of the first attempt's context was read (or written) right here: hand it over.
            const { owner, project } = read;
            const context =
              owner && project ? { agent, user: owner, conversation: titled, project, ledger } : undefined;
            return { replay: undefined, created, appended, context, queued };
          },
          { gather },
        );
      const run = await start(false).catch((error: unknown) => {
        if (!progress.writesFailed) throw error;
        return start(true);
      });
      if (run.replay) return { status: 'existing', run: await views.view(run.replay) };
      deps.handoffs?.offer(run.created.id, run.appended, run.context);
      await (run.queued ?? queue.enqueue(run.created.id));
      return { status: 'started', run: await views.view(run.created) };
    } catch (error) {
      return recoverStartConflict(actor, conversationId, input, error);
    }
  }

  function resolveReplay(actor: Actor, replay: Run, conversationId: string): Run {
    if (replay.user_id !== actor.id || replay.conversation_id !== conversationId) {
      throw new TroupeError('request_id_conflict', 'request_id is already used by another request');
    }
    return replay;
  }

  /** Turns database constraint failures into the answers a client needs (replay, or who is busy). */
  async function recoverStartConflict(
    actor: Actor,
    conversationId: string,
    input: PostMessageInput,
    error: unknown,
  ): Promise<StartedRun> {
    // Two identical requests raced: the loser answers with the winner's run.
    const winner = await startRaceWinner(storage, error, actor.id, input.request_id);
    if (winner)
      return { status: 'existing', run: await views.view(resolveReplay(actor, winner, conversationId)) };
    if (isTroupeError(error, 'run_busy')) {
      const conversation = await storage.conversations.get(conversationId);
      const active = conversation ? await storage.runs.getActiveForThread(conversation.thread_id) : undefined;
      throw new TroupeError(
        'run_busy',
        'This conversation already has an active run; wait for it, or cancel it',
        {
          details: { active_run_id: active?.id ?? null, active_run_status: active?.status ?? null },
        },
      );
    }
    throw error;
  }

  async function getResult(actor: Actor, runId: string): Promise<RunResult> {
    const visible = await visibleRun(actor, runId);
    const [run = visible] = await views.withLiveUsage([visible]);
    return {
      status: run.status,
      run_id: run.id,
      thread_id: run.thread_id,
      conversation_id: run.conversation_id,
      agent_id: run.agent_id,
      request_id: run.request_id,
      output: run.output ?? '',
      usage: run.usage,
      ...(run.error ? { error: run.error } : {}),
    };
  }

  async function cancel(actor: Actor, runId: string): Promise<RunView> {
    const run = await visibleRun(actor, runId);
    const after = (await deps.endings.requestCancel(run.id, CANCELLED)) ?? run;
    // Cancelling a run closes its whole subtree, whatever state the run itself was in.
    await deps.endings.closeSubtree(after);
    return views.view(after);
  }

  async function awaitRun(actor: Actor, runId: string, timeoutMs: number): Promise<AwaitedRun> {
    // The wait's own first read decides visibility: nothing of the run is returned before it.
    const awaited = await awaitTerminal(storage, bus, runId, timeoutMs, undefined, {
      check: (run) => visibleTo(actor, runId, run),
    });
    return { run: await views.view(awaited.run), wait_timed_out: awaited.wait_timed_out };
  }

  async function streamEvents(
    actor: Actor,
    runId: string,
    afterSeq: number,
    signal: AbortSignal,
  ): Promise<RunEventStream> {
    await visibleRun(actor, runId);
    return streamRunEvents(storage, bus, runId, afterSeq, signal);
  }

  return {
    postMessage,
    getRun: async (actor, runId) => views.view(await visibleRun(actor, runId)),
    getResult,
    cancel,
    await: awaitRun,
    async listRunsOfConversation(actor, conversationId) {
      const conversation = await getReadableConversation(storage, actor, conversationId);
      return views.views(await storage.runs.listByConversation(conversation.id));
    },
    streamEvents,
    listChildRuns: (actor, conversationId) => listChildRuns(storage, views, actor, conversationId),
    async listApprovals(actor, runId) {
      const run = await visibleRun(actor, runId);
      return (await storage.approvals.listForRun(run.id)).filter((entry) => entry.kind === 'approval');
    },
    async decideApproval(actor, runId, toolCallId, decision) {
      const run = await visibleRun(actor, runId);
      // Only the run's user decides; an admin may read the run but not decide for its user.
      if (run.user_id !== actor.id) throw new TroupeError('run_not_found', `Run ${runId} not found`);
      const decided = await decideRunApproval(storage, queue, actor, run, toolCallId, decision);
      return { approval: decided.approval, run: await views.view(decided.run) };
    },
    inspectStep: (actor, runId, step) =>
      inspectRunStep({ storage, catalogue: deps.catalogue ?? [] }, actor, runId, step),
    async listQuestions(actor, runId) {
      return listRunQuestions(storage, await visibleRun(actor, runId));
    },
    async answerQuestion(actor, runId, toolCallId, answers) {
      const run = await visibleRun(actor, runId);
      // Only the user the agent asked answers; an admin may read the run but not speak for its user.
      if (run.user_id !== actor.id) throw new TroupeError('run_not_found', `Run ${runId} not found`);
      const answered = await answerRunQuestion(storage, queue, actor, run, toolCallId, answers);
      return { ...answered, run: await views.view(answered.run) };
    },
  };
}
