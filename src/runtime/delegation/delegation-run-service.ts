import type { Clock } from '../../core/clock.js';
import { delegationDepth, findCycle, type ChainLink } from '../../core/delegation/delegation-chain.js';
import { isExpertRef } from '../../core/delegation/delegation-policy.js';
import { splitExpertRefs } from '../../core/delegation/delegation-roster.js';
import { DELEGATION_TEXTS } from '../../core/delegation/delegation-texts.js';
import { isTroupeError } from '../../core/errors.js';
import { hashId, newId, newRunId } from '../../core/ids.js';
import type { EventBus } from '../../core/ports/event-bus.js';
import type { RunQueue } from '../../core/ports/run-queue.js';
import type { DelegatableExpert, Storage } from '../../core/ports/storage.js';
import type { Conversation } from '../../core/records/conversation.js';
import { isActiveStatus, type Run, type RunChannel } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import type { RunLimits } from '../../config.js';
import type { AwaitedRun } from '../run-service-api.js';
import { awaitTerminal } from '../run-service.js';
import { effectiveLimits } from '../agent-limits.js';
import { publishSubagentUpdate } from '../subagents/publish-subagent-update.js';
import { diagnoseRefusal } from './diagnose-refusal.js';
import { traceCarrier } from '../tracing/trace-carrier.js';

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
}

export type DelegationStart = { kind: 'started' | 'existing'; run: Run } | { kind: 'refused'; error: string };

export interface DelegationRunServiceDeps {
  storage: Storage;
  bus: EventBus;
  queue: RunQueue;
  clock: Clock;
  limits: RunLimits;
  /** For an expert whose config names no model. */
  defaultModel: string;
}

/** Hops walked up `created_by_run_id`; a chain is bounded by the depth limits long before this. */
const MAX_ANCESTRY = 64;

const refused = (error: string): DelegationStart => ({ kind: 'refused', error });

/**
 * Starting delegation runs (SPEC §6) for the `delegate` tool and `POST /api/delegate` alike. Every check
 * happens again here, at request time, whatever roster the model saw: the target must come back from the
 * one four-condition query, the depth must stay within the limit and the target must not already work
 * in the chain above. Refusals are results (`kind: 'refused'`) with the text the caller shows.
 */
export function createDelegationRunService(deps: DelegationRunServiceDeps) {
  const { storage } = deps;

  /** The delegating agent's own limits narrow the server's; a top-level API delegation has the server's. */
  async function limitsFor(input: DelegationStartInput): Promise<RunLimits> {
    const agentId = input.parent?.agent_id ?? input.origin?.agent_id;
    const agent = agentId === undefined ? undefined : await storage.agents.get(agentId);
    return effectiveLimits(deps.limits, agent?.config ?? {});
  }

  async function ancestry(parent: Run): Promise<ChainLink[]> {
    const links: ChainLink[] = [];
    let current: Run | undefined = parent;
    while (current && links.length < MAX_ANCESTRY) {
      links.push({ run_id: current.id, agent_id: current.agent_id });
      current = current.created_by_run_id ? await storage.runs.get(current.created_by_run_id) : undefined;
    }
    return links;
  }

  async function cycleText(chain: readonly ChainLink[], target: DelegatableExpert): Promise<string> {
    const slugs: string[] = [];
    for (const link of chain) slugs.push((await storage.agents.get(link.agent_id))?.slug ?? link.agent_id);
    return DELEGATION_TEXTS.cycle(slugs, target.agent.slug);
  }

  async function replayOf(
    input: DelegationStartInput,
    requestId: string | undefined,
  ): Promise<Run | undefined> {
    if (!requestId || !input.parent) return undefined;
    const replay = await storage.runs.getByRequestId(input.actor.id, requestId);
    return replay?.created_by_run_id === input.parent.id && replay.user_id === input.actor.id
      ? replay
      : undefined;
  }

  async function check(
    input: DelegationStartInput,
    task: string,
    limits: RunLimits,
  ): Promise<DelegationStart | { target: DelegatableExpert }> {
    const { parent, actor } = input;
    if (task === '') return refused(DELEGATION_TEXTS.emptyTask);
    if (parent) {
      if (parent.user_id !== actor.id) return refused(DELEGATION_TEXTS.notFound);
      if (parent.run_type === 'subagent') return refused(DELEGATION_TEXTS.subagentCannotDelegate);
      if (!isActiveStatus(parent.status)) return refused(DELEGATION_TEXTS.parentNotActive);
    }
    const currentAgentId = parent?.agent_id ?? input.origin?.agent_id ?? null;
    const ref = input.expert.trim();
    // Only a slug or an id names an expert (SPEC §6); a display name or anything else is simply not found.
    if (!isExpertRef(ref)) return refused(DELEGATION_TEXTS.notFound);
    // The decision is this one four-condition query; the diagnosis after it only words the refusal.
    const [target] = await storage.agents.listDelegatable(actor, {
      ...splitExpertRefs([ref]),
      exclude_id: currentAgentId,
    });
    if (!target) return refused(await diagnoseRefusal(storage, actor, ref, currentAgentId));
    if (!delegationDepth(parent?.depth, limits.delegationMaxDepth).allowed) {
      return refused(DELEGATION_TEXTS.depthExceeded(limits.delegationMaxDepth));
    }
    if (parent) {
      const cycle = findCycle(await ancestry(parent), target.agent.id);
      if (cycle) return refused(await cycleText(cycle, target));
    }
    return { target };
  }

  async function insert(
    input: DelegationStartInput,
    target: DelegatableExpert,
    task: string,
    requestId: string | undefined,
    fallbackProjectId: string | undefined,
    limits: RunLimits,
  ): Promise<DelegationStart> {
    const { parent, actor } = input;
    const trace = traceCarrier();
    return storage.transaction(async (tx): Promise<DelegationStart> => {
      let parentConversation = input.origin;
      if (parent) {
        const fresh = await tx.runs.get(parent.id);
        if (!fresh || !isActiveStatus(fresh.status)) return refused(DELEGATION_TEXTS.parentNotActive);
        if ((await tx.runs.countActive({ created_by_run_id: parent.id })) >= limits.maxActiveChildrenPerRun) {
          return refused(DELEGATION_TEXTS.tooManyChildren(limits.maxActiveChildrenPerRun));
        }
        if (
          (await tx.runs.countActive({ user_id: actor.id, children_only: true })) >=
          limits.maxActiveChildrenPerUser
        ) {
          return refused(DELEGATION_TEXTS.tooManyForUser(limits.maxActiveChildrenPerUser));
        }
        parentConversation = await tx.conversations.get(parent.conversation_id);
      }
      const projectId = parentConversation?.project_id ?? fallbackProjectId;
      if (!projectId) return refused('The delegation has no project to work in');
      const runId = newRunId();
      const threadId = newId('thr');
      const expert = target.agent;
      const conversation = await tx.conversations.create({
        user_id: actor.id,
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
      const run = await tx.runs.insert({
        id: runId,
        thread_id: threadId,
        conversation_id: conversation.id,
        agent_id: expert.id,
        user_id: actor.id,
        run_type: 'delegation',
        source: 'delegation',
        channel: input.channel,
        request_id: requestId ?? `req_${runId}`,
        created_by_run_id: parent?.id ?? null,
        root_run_id: parent?.root_run_id ?? runId,
        depth: delegationDepth(parent?.depth, limits.delegationMaxDepth).depth,
        subagent_thread_relation_id: null,
        runtime_scope_id: parent?.runtime_scope_id ?? threadId,
        // Approval mode is the delegator's decision; model and tools are the expert's own.
        tool_approval_mode: parent?.tool_approval_mode ?? expert.config.tool_approval_mode ?? 'default',
        model_spec: expert.config.model ?? deps.defaultModel,
        input: {
          message: task,
          expert_slug: expert.slug,
          ...(input.toolCallId ? { parent_tool_call_id: input.toolCallId } : {}),
          ...trace,
        },
      });
      await tx.messages.append(threadId, runId, 0, [{ role: 'user', content: task }]);
      return { kind: 'started', run };
    });
  }

  return {
    async start(input: DelegationStartInput): Promise<DelegationStart> {
      const task = input.task.trim();
      const requestId =
        input.parent && input.toolCallId
          ? hashId('req:', `${input.parent.id}:delegate:${input.toolCallId}`, 48)
          : undefined;
      // A replayed tool call (a resumed parent) waits for the run it already started.
      const replay = await replayOf(input, requestId);
      if (replay) return { kind: 'existing', run: replay };
      const limits = await limitsFor(input);
      const checked = await check(input, task, limits);
      if (!('target' in checked)) return checked;
      const fallbackProjectId =
        input.parent || input.origin || !input.project ? undefined : await input.project();
      let started: DelegationStart;
      try {
        started = await insert(input, checked.target, task, requestId, fallbackProjectId, limits);
      } catch (error) {
        const winner = isTroupeError(error, 'request_id_conflict')
          ? await replayOf(input, requestId)
          : undefined;
        if (!winner) throw error;
        return { kind: 'existing', run: winner };
      }
      if (started.kind === 'started') {
        await deps.queue.enqueue(started.run.id);
        await publishSubagentUpdate(storage, deps.bus, started.run);
      }
      return started;
    },

    awaitRun(runId: string, timeoutMs: number, signal?: AbortSignal): Promise<AwaitedRun> {
      return awaitTerminal(storage, deps.bus, runId, timeoutMs, signal);
    },
  };
}

export type DelegationRunService = ReturnType<typeof createDelegationRunService>;
