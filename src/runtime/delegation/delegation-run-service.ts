import type { Clock } from '../../core/clock.js';
import { findCycle, type ChainLink } from '../../core/delegation/delegation-chain.js';
import { isExpertRef } from '../../core/delegation/delegation-policy.js';
import { splitExpertRefs } from '../../core/delegation/delegation-roster.js';
import { DELEGATION_TEXTS } from '../../core/delegation/delegation-texts.js';
import { TroupeError } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Agent } from '../../core/records/agent.js';
import type { Conversation } from '../../core/records/conversation.js';
import type { Run, RunChannel } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import type { AwaitedRunRecord } from '../runs/run-service-api.js';
import { awaitTerminal } from '../runs/wait/await-terminal.js';
import { isRefused, refused, type Refused } from '../runs/start/child-run-refusal.js';
import { newConversationHome } from '../runs/start/new-conversation-home.js';
import { startChildRun } from '../runs/start/start-child-run.js';
import type { ChildHome, ChildRunDeps, ChildRunScope, CreatorKnown } from '../runs/start/child-run-spec.js';
import { diagnoseRefusal } from './diagnose-refusal.js';
import { GRADER_TEXTS } from '../../core/verification/grader-texts.js';
import { EVIDENCE_EVENT_TYPES } from '../../core/verification/evidence.js';
import { remoteReportOf } from '../../core/verification/remote-evidence.js';
import { startWatched } from '../runs/start/start-watched.js';
import type { WatchedSince } from '../runs/wait/watch-run-ends.js';
import type { AdoptCheckpoint } from '../../core/tools/adopt-checkpoint.js';
import type { BudgetLimits } from '../../core/budgets/budget.js';

export interface DelegationStartInput {
  /** The user the expert runs as: the delegating run's user, or the API caller. */
  actor: Actor;
  /** Slug or id of the target expert. */
  expert: string;
  task: string;
  /** The delegating run (the `delegate` tool's run, or an owned `parent_run_id`). */
  parent?: Run;
  /** Without a parent: the caller's conversation, whose expert is "self" and whose project is reused. */
  origin?: Conversation;
  /**
   * Without a parent or origin: the project the new conversation binds to. Called only once the checks
   * passed, so a refused delegation creates nothing (not even a first Default project).
   */
  project?: () => Promise<string>;
  /** The tool call that delegates: makes a replayed call find its run instead of starting another. */
  toolCallId?: string;
  channel: RunChannel;
  /** Carved from the parent's budget, or narrowing the expert's at the top (docs/budgets.md). */
  budget?: BudgetLimits | undefined;
  /** What the delegating run's attempt loaded (the `delegate` tool's run), so the start does not read it again. */
  creator?: CreatorKnown | undefined;
  /** The id the started run gets (see ChildRunSpec.runId). */
  runId?: string | undefined;
  /** See ChildRunSpec.awaited. */
  awaited?: boolean | undefined;
  /** See ChildRunSpec.adoptCheckpoint. */
  adoptCheckpoint?: AdoptCheckpoint | undefined;
  /** Acceptance criteria: the finished run is graded (docs/verified-delegation.md). */
  acceptance?: string | undefined;
  /** A revision: the run whose thread and conversation the new run continues, and the first task. */
  revises?: { run: Run; task: string } | undefined;
}

export type DelegationStart = { kind: 'started' | 'existing'; run: Run } | Refused;

export interface DelegationRunServiceDeps extends ChildRunDeps {
  clock: Clock;
}

/** A remote expert's run whose task has no A2A context: a revision could not continue it. */
async function remoteRevisionRefused(storage: Storage, run: Run): Promise<boolean> {
  const report = remoteReportOf(await storage.events.listOfTypes(run.id, EVIDENCE_EVENT_TYPES));
  return report !== undefined && !report.task.context_id;
}

/** Hops walked up `created_by_run_id`; a chain is bounded by the depth limits long before this. */
const MAX_ANCESTRY = 64;

/**
 * Starting delegation runs (docs/delegation.md) for the `delegate` tool and `POST /api/delegate` alike, on the shared
 * child-run start. Every check happens again here, at request time, whatever roster the model saw: the
 * target must come back from the one four-condition query, the depth must stay within the limit and the
 * target must not already work in the chain above. Refusals are results with the text the caller shows.
 */
export function createDelegationRunService(deps: DelegationRunServiceDeps) {
  const { storage } = deps;

  /** The target, from the one roster query; the diagnosis after it only words the refusal. */
  async function resolveExpert(
    reader: Storage,
    actor: Actor,
    ref: string,
    currentAgentId: string | null,
  ): Promise<Agent | Refused> {
    // Only a slug or an id names an expert (docs/delegation.md); a display name or anything else is simply not found.
    if (!isExpertRef(ref)) return refused(DELEGATION_TEXTS.notFound);
    const [target] = await reader.agents.listDelegatable(actor, {
      ...splitExpertRefs([ref]),
      exclude_id: currentAgentId,
    });
    return target ? target.agent : refused(await diagnoseRefusal(reader, actor, ref, currentAgentId));
  }

  /** A→B→A is refused by ancestry: the target may not already work anywhere above the delegating run. */
  async function cycleRefusal({ tx, parent }: ChildRunScope, target: Agent): Promise<string | undefined> {
    const links: ChainLink[] = [];
    for (let current = parent; current && links.length < MAX_ANCESTRY;) {
      links.push({ run_id: current.id, agent_id: current.agent_id });
      current = current.created_by_run_id ? await tx.runs.get(current.created_by_run_id) : undefined;
    }
    const cycle = findCycle(links, target.id);
    if (!cycle) return undefined;
    const slugs: string[] = [];
    for (const link of cycle) slugs.push((await tx.agents.get(link.agent_id))?.slug ?? link.agent_id);
    return DELEGATION_TEXTS.cycle(slugs, target.slug);
  }

  /** The expert's own conversation, in the delegating conversation's project (or the fallback one). */
  function home(
    input: DelegationStartInput,
    fallbackProjectId: string | undefined,
    { tx, parent, parentConversation: parentRead, threadId }: ChildRunScope,
    expert: Agent,
  ): ChildHome | Refused {
    const parentConversation = parent ? parentRead : input.origin;
    const projectId = parentConversation?.project_id ?? fallbackProjectId;
    if (!projectId) return refused('The delegation has no project to work in');
    return newConversationHome(tx, {
      user_id: input.actor.id,
      agent_id: expert.id,
      thread_id: threadId,
      project_id: projectId,
      status: 'delegation',
      title: `Delegation: ${expert.name}`,
      metadata: {
        source: 'delegation',
        expert_slug: expert.slug,
        parent_conversation_id: parentConversation?.id ?? null,
        parent_thread_id: parentConversation?.thread_id ?? null,
        created_by_run_id: parent?.id ?? null,
        parent_tool_call_id: input.toolCallId ?? null,
      },
    });
  }

  const service = {
    async start(input: DelegationStartInput): Promise<DelegationStart> {
      const task = input.task.trim();
      if (task === '') return refused(DELEGATION_TEXTS.emptyTask);
      const ref = input.expert.trim();
      // A remote expert's revision is a follow-up in its task's A2A context: without one it could not know the task.
      if (input.revises && (await remoteRevisionRefused(storage, input.revises.run)))
        return refused(GRADER_TEXTS.remoteRevisionImpossible);
      const currentAgentId = input.parent?.agent_id ?? input.origin?.agent_id ?? null;
      let expert = (scope: ChildRunScope) => resolveExpert(scope.tx, input.actor, ref, currentAgentId);
      let fallbackProjectId: string | undefined;
      if (!input.parent && !input.origin && input.project) {
        // Nothing but the expert to check, and the project is made outside the transaction: only once the
        // expert passed, so a refused delegation creates nothing.
        const target = await resolveExpert(storage, input.actor, ref, currentAgentId);
        if (isRefused(target)) return target;
        fallbackProjectId = await input.project();
        expert = () => Promise.resolve(target);
      }
      const started = await startChildRun(deps, {
        kind: 'delegation',
        userId: input.actor.id,
        parentRunId: input.parent?.id,
        toolCallId: input.toolCallId,
        limitsAgentId: input.origin?.agent_id,
        channel: input.channel,
        message: task,
        threadId: () => input.revises?.run.thread_id ?? newId('thr'),
        requestScope: () => 'delegate',
        agent: expert,
        verify: cycleRefusal,
        home: (scope, agent) =>
          Promise.resolve(
            input.revises
              ? { conversationId: input.revises.run.conversation_id, rows: Promise.resolve({}) }
              : home(input, fallbackProjectId, scope, agent),
          ),
        input: (agent) => ({
          expert_slug: agent.slug,
          ...(input.acceptance?.trim() ? { acceptance: input.acceptance.trim() } : {}),
          ...(input.revises ? { task: input.revises.task, revises_run_id: input.revises.run.id } : {}),
        }),
        budget: input.budget,
        creator: input.creator,
        runId: input.runId,
        awaited: input.awaited,
        adoptCheckpoint: input.adoptCheckpoint,
      });
      // Every delegation gets a new thread, which no run can hold yet.
      if (started.kind === 'busy')
        throw new TroupeError('run_busy', `Thread ${started.threadId} already has an active run`);
      return started.kind === 'refused' ? started : { kind: started.kind, run: started.run };
    },

    /** start, watched from before the run exists, then `use` (see startWatched). */
    startWatched<R>(
      input: Omit<DelegationStartInput, 'runId'>,
      use: (started: DelegationStart, since: WatchedSince | undefined) => Promise<R>,
    ): Promise<R> {
      return startWatched(deps.bus, (runId) => service.start({ ...input, runId }), use);
    },

    awaitRun(
      runId: string,
      timeoutMs: number,
      signal?: AbortSignal,
      since?: WatchedSince,
    ): Promise<AwaitedRunRecord> {
      return awaitTerminal(storage, deps.bus, runId, timeoutMs, signal, { since });
    },
  };
  return service;
}

export type DelegationRunService = ReturnType<typeof createDelegationRunService>;
