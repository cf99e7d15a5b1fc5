import type { Clock } from '../../core/clock.js';
import { TroupeError, isTroupeError } from '../../core/errors.js';
import { newRunId, subagentChildThreadId, subagentRequestId } from '../../core/ids.js';
import type { EventBus } from '../../core/ports/event-bus.js';
import type { RunQueue } from '../../core/ports/run-queue.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Agent } from '../../core/records/agent.js';
import type { SubagentThread } from '../../core/records/conversation.js';
import type { Run } from '../../core/records/run.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';
import type { RunLimits } from '../../config.js';
import { effectiveLimits } from '../agent-limits.js';
import { publishSubagentUpdate } from './publish-subagent-update.js';
import { traceCarrier } from '../tracing/trace-carrier.js';

export interface SubagentStartInput {
  creatorRunId: string;
  userId: string;
  subagent: Agent;
  description: string;
  /** Continue this child thread instead of starting a new one. */
  threadId?: string | null;
  toolCallId: string;
  /** Set for built-in and inline subagents: `subagent` is then the parent agent playing this spec. */
  inlineSubagent?: string;
}

export type SubagentStartOutcome =
  | { kind: 'started' | 'existing'; run: Run; relation: SubagentThread; continuing: boolean }
  | { kind: 'busy'; threadId: string; activeRun: Run | undefined };

export interface SubagentRunServiceDeps {
  storage: Storage;
  bus: EventBus;
  queue: RunQueue;
  clock: Clock;
  limits: RunLimits;
  /** The server default model: a registered subagent without its own model uses it, never the parent's. */
  defaultModel: string;
}

/**
 * Starting and owning subagent runs (Yuxi §5). A start is one transaction: the child conversation, the
 * thread relation, the run and its input message exist together or not at all. Refusals are thrown as
 * TroupeErrors whose message is what the model is told.
 */
export function createSubagentRunService(deps: SubagentRunServiceDeps) {
  const { storage } = deps;

  async function startOnce(input: SubagentStartInput, description: string, childThreadId: string, continuing: boolean) {
    const trace = traceCarrier();
    return storage.transaction(async (tx): Promise<SubagentStartOutcome> => {
      const creator = await tx.runs.get(input.creatorRunId);
      if (creator?.user_id !== input.userId) throw refusal('The parent run does not exist');
      if (creator.run_type === 'subagent') throw refusal(SUBAGENT_TEXTS.subagentCannotStart);
      if (creator.status !== 'running') throw refusal(SUBAGENT_TEXTS.creatorNotRunning);
      // The creating agent's own limits narrow the server's (SPEC §4: every limit is also an agent setting).
      const limits = effectiveLimits(deps.limits, (await tx.agents.get(creator.agent_id))?.config ?? {});
      if (creator.depth + 1 > limits.subagentMaxDepth) throw refusal(SUBAGENT_TEXTS.depthExceeded(limits.subagentMaxDepth));

      const requestId = subagentRequestId(creator.id, childThreadId, input.toolCallId);
      const replay = await tx.runs.getByRequestId(creator.user_id, requestId);
      if (replay) return replayOf(tx, replay, creator, continuing);

      if ((await tx.runs.countActive({ created_by_run_id: creator.id })) >= limits.maxActiveChildrenPerRun) {
        throw refusal(SUBAGENT_TEXTS.tooManyChildren(limits.maxActiveChildrenPerRun));
      }
      if ((await tx.runs.countActive({ user_id: creator.user_id, children_only: true })) >= limits.maxActiveChildrenPerUser) {
        throw refusal(SUBAGENT_TEXTS.tooManyForUser(limits.maxActiveChildrenPerUser));
      }

      let relation = await tx.subagentThreads.getByChildThread(childThreadId);
      if (relation) {
        if (relation.user_id !== creator.user_id || relation.parent_conversation_id !== creator.conversation_id) {
          throw refusal(SUBAGENT_TEXTS.threadNotInConversation(childThreadId));
        }
        if (relation.subagent_slug !== input.subagent.slug) {
          throw refusal(SUBAGENT_TEXTS.threadOfOtherSubagent(childThreadId, relation.subagent_slug));
        }
      } else {
        if (continuing) throw refusal(SUBAGENT_TEXTS.threadNotInConversation(childThreadId));
        const parent = await tx.conversations.get(creator.conversation_id);
        if (!parent) throw refusal('The parent conversation does not exist');
        const child = await tx.conversations.create({
          user_id: creator.user_id,
          agent_id: input.subagent.id,
          thread_id: childThreadId,
          project_id: parent.project_id,
          status: 'subagent',
          title: `SubAgent: ${input.subagent.name}`,
          metadata: {
            source: 'subagent',
            parent_conversation_id: parent.id,
            parent_thread_id: creator.thread_id,
            created_by_run_id: creator.id,
            subagent_slug: input.subagent.slug,
          },
        });
        relation = await tx.subagentThreads.create({
          user_id: creator.user_id,
          parent_conversation_id: parent.id,
          child_conversation_id: child.id,
          child_thread_id: childThreadId,
          subagent_slug: input.subagent.slug,
          created_by_run_id: creator.id,
        });
      }

      const runId = newRunId();
      const run = await tx.runs.insert({
        id: runId,
        thread_id: childThreadId,
        conversation_id: relation.child_conversation_id,
        agent_id: input.subagent.id,
        user_id: creator.user_id,
        run_type: 'subagent',
        source: 'subagent',
        channel: 'internal',
        request_id: requestId,
        created_by_run_id: creator.id,
        root_run_id: creator.root_run_id,
        depth: creator.depth + 1,
        subagent_thread_relation_id: relation.id,
        runtime_scope_id: creator.runtime_scope_id,
        // Approval mode is inherited; model and tools come from the subagent's own config. A registered
        // subagent without a model gets the server default (SPEC §4), never the parent's; built-in and inline
        // specs already carry their resolved model (their own, else the parent's: SPEC §5).
        tool_approval_mode: creator.tool_approval_mode,
        model_spec:
          input.subagent.config.model ??
          (input.inlineSubagent === undefined ? deps.defaultModel : creator.model_spec),
        input: {
          message: description,
          parent_tool_call_id: input.toolCallId,
          subagent_slug: input.subagent.slug,
          ...(input.inlineSubagent === undefined ? {} : { inline_subagent: input.inlineSubagent }),
          ...trace,
        },
      });
      await tx.messages.append(childThreadId, runId, 0, [{ role: 'user', content: description }]);
      return { kind: 'started', run, relation, continuing };
    });
  }

  async function replayOf(tx: Storage, replay: Run, creator: Run, continuing: boolean): Promise<SubagentStartOutcome> {
    const relation = replay.subagent_thread_relation_id ? await tx.subagentThreads.get(replay.subagent_thread_relation_id) : undefined;
    if (replay.user_id !== creator.user_id || replay.created_by_run_id !== creator.id || !relation) {
      throw refusal('request_id conflict: this tool call id was already used for another run');
    }
    return { kind: 'existing', run: replay, relation, continuing };
  }

  return {
    async start(input: SubagentStartInput): Promise<SubagentStartOutcome> {
      const description = input.description.trim();
      if (description === '') throw refusal(SUBAGENT_TEXTS.emptyDescription);
      const requested = input.threadId?.trim() ?? '';
      const continuing = requested !== '';
      const creator = await storage.runs.get(input.creatorRunId);
      const childThreadId = continuing
        ? requested
        : subagentChildThreadId(creator?.thread_id ?? '', input.subagent.slug, input.toolCallId);
      for (let attempt = 0; ; attempt++) {
        try {
          const outcome = await startOnce(input, description, childThreadId, continuing);
          if (outcome.kind === 'started') {
            await deps.queue.enqueue(outcome.run.id);
            await publishSubagentUpdate(storage, deps.bus, outcome.run);
          }
          return outcome;
        } catch (error) {
          if (isTroupeError(error, 'run_busy')) {
            return { kind: 'busy', threadId: childThreadId, activeRun: await storage.runs.getActiveForThread(childThreadId) };
          }
          // Concurrent replays of one tool call race on the same unique keys; the retry finds the winner.
          if (attempt < 3 && !isRefusal(error)) continue;
          throw error;
        }
      }
    },

    /** A run the current run created (Yuxi §5.2); anything else is indistinguishable from a missing run. */
    async getOwnedChild(creatorRunId: string, userId: string, runId: string): Promise<{ run: Run; relation: SubagentThread }> {
      const [creator, run] = await Promise.all([storage.runs.get(creatorRunId), storage.runs.get(runId)]);
      const relation = run?.subagent_thread_relation_id ? await storage.subagentThreads.get(run.subagent_thread_relation_id) : undefined;
      const owned =
        creator?.user_id === userId &&
        run?.user_id === userId &&
        run.run_type === 'subagent' &&
        run.created_by_run_id === creator.id &&
        relation?.parent_conversation_id === creator.conversation_id &&
        relation.child_conversation_id === run.conversation_id &&
        relation.child_thread_id === run.thread_id;
      if (!owned || !run || !relation) throw refusal(SUBAGENT_TEXTS.notOwned);
      return { run, relation };
    },
  };
}

export type SubagentRunService = ReturnType<typeof createSubagentRunService>;

const REFUSAL = Symbol('subagent-refusal');

/** A refusal is an answer for the model (a tool error result), not a failure of the run. */
export function refusal(message: string): TroupeError {
  const error = new TroupeError('validation_failed', message);
  Object.defineProperty(error, REFUSAL, { value: true });
  return error;
}

export function isRefusal(error: unknown): boolean {
  return error instanceof TroupeError && (error as unknown as Record<symbol, unknown>)[REFUSAL] === true;
}
