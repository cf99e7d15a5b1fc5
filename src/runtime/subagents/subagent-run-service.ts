import type { Clock } from '../../core/clock.js';
import { newId, subagentChildThreadId } from '../../core/ids.js';
import { settleInOrder } from '../../core/settle-in-order.js';
import type { Agent } from '../../core/records/agent.js';
import type { SubagentThread } from '../../core/records/conversation.js';
import type { Run } from '../../core/records/run.js';
import { isOwnedChild } from '../../core/runs/lineage.js';
import { SUBAGENT_TEXTS } from '../../core/subagents/subagent-texts.js';
import { refused, REQUEST_ID_CONFLICT, type Refused } from '../runs/start/child-run-refusal.js';
import { newConversationHome } from '../runs/start/new-conversation-home.js';
import { startChildRun } from '../runs/start/start-child-run.js';
import type { ChildHome, ChildRunDeps, ChildRunScope, CreatorKnown } from '../runs/start/child-run-spec.js';
import type { AdoptCheckpoint } from '../../core/tools/adopt-checkpoint.js';
import type { BudgetLimits } from '../../core/budgets/budget.js';

export interface SubagentStartInput {
  creatorRunId: string;
  /** The creator's thread, when the caller has its run: a new child's thread is derived from it. */
  creatorThreadId?: string | undefined;
  userId: string;
  subagent: Agent;
  description: string;
  /** Continue this child thread instead of starting a new one. */
  threadId?: string | null;
  toolCallId: string;
  /** Set for built-in and inline subagents: `subagent` is then the parent agent playing this spec. */
  inlineSubagent?: string;
  /** Part of the parent's remaining budget asked for this child (docs/budgets.md). */
  budget?: BudgetLimits | undefined;
  /** What the creator's attempt loaded (its agent's limits apply); read in the start when absent. */
  creator?: CreatorKnown;
  /** The id the started run gets (see ChildRunSpec.runId). */
  runId?: string | undefined;
  /** See ChildRunSpec.awaited. */
  awaited?: boolean | undefined;
  /** See ChildRunSpec.adoptCheckpoint. */
  adoptCheckpoint?: AdoptCheckpoint | undefined;
  /** Acceptance criteria: the finished run is graded (docs/verified-delegation.md). */
  acceptance?: string | undefined;
  /** A revision's first task (its own message is the grader's reasons). */
  task?: string | undefined;
}

export type SubagentStartOutcome =
  | { kind: 'started' | 'existing'; run: Run; relation: SubagentThread; continuing: boolean }
  | { kind: 'busy'; threadId: string; activeRun: Run | undefined }
  | Refused;

/** `defaultModel`: a registered subagent without its own model uses it, never the parent's. */
export interface SubagentRunServiceDeps extends ChildRunDeps {
  clock: Clock;
}

/**
 * Starting and owning subagent runs (docs/subagents.md#the-child-run), on the shared child-run start. What only subagents have: the
 * child thread derived from the parent's (or continued), and its relation to the parent conversation.
 */
export function createSubagentRunService(deps: SubagentRunServiceDeps) {
  const { storage } = deps;

  /**
   * The subagent runs `creatorRunId` started, in the order asked, or undefined if any one is not its own
   * (another run's, another user's, not a subagent run, or a relation that does not match): three reads
   * for any number of runs.
   */
  async function getOwnedChildren(
    creatorRunId: string,
    userId: string,
    runIds: readonly string[],
  ): Promise<{ run: Run; relation: SubagentThread }[] | undefined> {
    const [creator, runs] = await Promise.all([storage.runs.get(creatorRunId), storage.runs.getMany(runIds)]);
    if (creator?.user_id !== userId) return undefined;
    const byId = new Map(runs.map((run) => [run.id, run]));
    const relationIds = runs.flatMap((run) =>
      run.subagent_thread_relation_id ? [run.subagent_thread_relation_id] : [],
    );
    const relations = new Map(
      (await storage.subagentThreads.getMany(relationIds)).map((relation) => [relation.id, relation]),
    );
    const owned: { run: Run; relation: SubagentThread }[] = [];
    for (const runId of runIds) {
      const run = byId.get(runId);
      if (!run || !isOwnedChild(run, creator) || run.run_type !== 'subagent') return undefined;
      const relation = run.subagent_thread_relation_id
        ? relations.get(run.subagent_thread_relation_id)
        : undefined;
      const sameThread =
        relation?.parent_conversation_id === creator.conversation_id &&
        relation.child_conversation_id === run.conversation_id &&
        relation.child_thread_id === run.thread_id;
      if (!relation || !sameThread) return undefined;
      owned.push({ run, relation });
    }
    return owned;
  }

  /** A continued thread must be this conversation's and this subagent's; a new one gets its records here. */
  async function home(
    { tx, parent, parentConversation, relationOf, threadId }: ChildRunScope,
    subagent: Agent,
    continuing: boolean,
  ): Promise<ChildHome | Refused> {
    if (!parent) return refused(SUBAGENT_TEXTS.parentMissing);
    const existing = await relationOf(threadId);
    if (existing) {
      if (existing.user_id !== parent.user_id || existing.parent_conversation_id !== parent.conversation_id) {
        return refused(SUBAGENT_TEXTS.threadNotInConversation(threadId));
      }
      if (existing.subagent_slug !== subagent.slug) {
        return refused(SUBAGENT_TEXTS.threadOfOtherSubagent(threadId, existing.subagent_slug));
      }
      return {
        conversationId: existing.child_conversation_id,
        relationId: existing.id,
        rows: Promise.resolve({ relation: existing }),
      };
    }
    if (continuing) return refused(SUBAGENT_TEXTS.threadNotInConversation(threadId));
    if (!parentConversation) return refused('The parent conversation does not exist');
    // Written together with the child's run row, one round trip on PostgreSQL: the relation and the run name
    // the conversation and the relation by the ids made here.
    const home = newConversationHome(tx, {
      user_id: parent.user_id,
      agent_id: subagent.id,
      thread_id: threadId,
      project_id: parentConversation.project_id,
      status: 'subagent',
      title: `SubAgent: ${subagent.name}`,
      metadata: {
        source: 'subagent',
        parent_conversation_id: parentConversation.id,
        parent_thread_id: parent.thread_id,
        created_by_run_id: parent.id,
        subagent_slug: subagent.slug,
      },
    });
    const relationId = newId('rel');
    const relation = tx.subagentThreads.create(
      {
        user_id: parent.user_id,
        parent_conversation_id: parentConversation.id,
        child_conversation_id: home.conversationId,
        child_thread_id: threadId,
        subagent_slug: subagent.slug,
        created_by_run_id: parent.id,
      },
      relationId,
    );
    const rows = settleInOrder([home.rows, relation]).then(([{ created }, written]) => ({
      created,
      relation: written,
    }));
    return { conversationId: home.conversationId, relationId, rows };
  }

  return {
    async start(input: SubagentStartInput): Promise<SubagentStartOutcome> {
      const description = input.description.trim();
      if (description === '') return refused(SUBAGENT_TEXTS.emptyDescription);
      const requested = input.threadId?.trim() ?? '';
      const continuing = requested !== '';
      const { subagent, inlineSubagent, toolCallId } = input;
      const childThread = (parentThreadId: string) =>
        continuing ? requested : subagentChildThreadId(parentThreadId, subagent.slug, toolCallId);
      const started = await startChildRun(deps, {
        kind: 'subagent',
        userId: input.userId,
        parentRunId: input.creatorRunId,
        toolCallId,
        channel: 'internal',
        message: description,
        threadId: (parent) => childThread(parent?.thread_id ?? ''),
        // A run's thread never changes: the creator's as the caller has it is the parent's as the start reads it.
        readAlso: {
          childAgentId: subagent.id,
          childThreadId:
            continuing || input.creatorThreadId !== undefined
              ? childThread(input.creatorThreadId ?? '')
              : undefined,
        },
        requestScope: (threadId) => threadId,
        agent: () => Promise.resolve(subagent),
        home: (scope) => home(scope, subagent, continuing),
        input: () => ({
          subagent_slug: subagent.slug,
          ...(inlineSubagent === undefined ? {} : { inline_subagent: inlineSubagent }),
          ...(input.acceptance?.trim() ? { acceptance: input.acceptance.trim() } : {}),
          ...(input.task === undefined ? {} : { task: input.task }),
        }),
        // A registered subagent without a model gets the server default (docs/subagents.md), never the parent's; built-in
        // and inline specs already carry their resolved model (their own, else the parent's: docs/inline-subagents.md).
        inheritsParentModel: inlineSubagent !== undefined,
        budget: input.budget,
        creator: input.creator,
        runId: input.runId,
        awaited: input.awaited,
        adoptCheckpoint: input.adoptCheckpoint,
      });
      if (started.kind === 'busy' || started.kind === 'refused') return started;
      // Every subagent run has its relation: a replayed run without one is not this start's.
      if (!started.relation) return refused(REQUEST_ID_CONFLICT);
      return { ...started, relation: started.relation, continuing };
    },

    /**
     * A subagent run the current run created, in the creator's conversation (docs/subagents.md#ownership); anything else is
     * indistinguishable from a missing run: undefined.
     */
    async getOwnedChild(
      creatorRunId: string,
      userId: string,
      runId: string,
    ): Promise<{ run: Run; relation: SubagentThread } | undefined> {
      return (await getOwnedChildren(creatorRunId, userId, [runId]))?.[0];
    },

    getOwnedChildren,
  };
}

export type SubagentRunService = ReturnType<typeof createSubagentRunService>;
