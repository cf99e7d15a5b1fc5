import type { KeyObject } from 'node:crypto';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import { isTroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Agent } from '../../core/records/agent.js';
import type { Conversation } from '../../core/records/conversation.js';
import type { Run, ToolApproval } from '../../core/records/run.js';
import { isTerminalStatus } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import type { AgentService } from '../agents/agent-service.js';
import type { ConversationService } from '../conversations/conversation-service.js';
import type { RunServiceApi } from '../runs/run-service-api.js';
import type { ListedRun } from './a2a-task-list.js';
import { getPublishedExpert, isPublishedExpert, listPublishedExperts } from './published-experts.js';

export interface A2ADependencies {
  storage: Storage;
  agents: AgentService;
  conversations: ConversationService;
  runs: RunServiceApi;
  /** Where failures no client should see go (the server log). */
  onInternalError: (error: unknown) => void;
  /** Issuers whose caller claims this server records (`TROUPE_A2A_TRUSTED_CALLERS`). */
  trustedCallers: ReadonlyMap<string, KeyObject>;
}

export interface A2AScope {
  actor: Actor;
  /** The expert of a per-expert endpoint; unset at the server endpoint, where `tenant` names one. */
  expert: Agent | undefined;
  /** This server's origin as the client reached it: the audience of caller claims. */
  origin: string;
}

/**
 * Which runs are the caller's A2A tasks, and the records behind them. A task is a top-level run of the
 * caller (even an admin sees only their own: other users' ids are `TaskNotFound`) with a published
 * expert — the endpoint's expert, or at the server endpoint any the caller may use.
 */
export function createA2ATaskAccess(deps: A2ADependencies, scope: A2AScope) {
  const { agents, conversations, runs } = deps;
  const { actor } = scope;

  async function expertFor(requested: string | undefined): Promise<Agent> {
    const tenant = requested ?? '';
    if (scope.expert) {
      if (tenant !== '' && tenant !== scope.expert.slug && tenant !== scope.expert.id) {
        throw new RequestMalformedError(`tenant "${tenant}" does not name this endpoint's expert`);
      }
      return scope.expert;
    }
    if (tenant === '') {
      throw new RequestMalformedError(
        'Name the expert in params.tenant (a skill id of the server card), or use its own endpoint',
      );
    }
    try {
      return await getPublishedExpert(agents, actor, tenant);
    } catch (error) {
      if (isTroupeError(error, 'agent_not_found'))
        throw new RequestMalformedError(`tenant "${tenant}" names no published expert available to you`);
      throw error;
    }
  }

  async function isTaskExpert(agentId: string): Promise<boolean> {
    if (scope.expert) return agentId === scope.expert.id;
    try {
      return isPublishedExpert(await agents.get(actor, agentId));
    } catch (error) {
      if (isTroupeError(error, 'agent_not_found')) return false;
      throw error;
    }
  }

  async function loadTask(id: string | undefined): Promise<Run> {
    // The 0.3 translation passes whatever the client sent, so the id may be missing altogether.
    if (typeof id !== 'string' || id.trim() === '')
      throw new RequestMalformedError('params.id (the task id) is required');
    let run: Run;
    try {
      run = await runs.getRun(actor, id);
    } catch (error) {
      if (isTroupeError(error, 'run_not_found')) throw new TaskNotFoundError(`Task ${id} not found`);
      throw error;
    }
    if (run.user_id !== actor.id || run.created_by_run_id !== null || !(await isTaskExpert(run.agent_id))) {
      throw new TaskNotFoundError(`Task ${id} not found`);
    }
    return run;
  }

  /** The approvals and questions the caller's run waits for (the run is one `loadTask` or a list gave). */
  async function pending(run: Run): Promise<ToolApproval[]> {
    if (isTerminalStatus(run.status) || run.status === 'pending') return [];
    const inputs = await deps.storage.approvals.listForRun(run.id);
    return inputs.filter((input) => input.status === 'pending');
  }

  /** A context to continue: the caller's own, active-or-archived conversation with this expert. */
  async function ownConversation(contextId: string, expert: Agent): Promise<Conversation> {
    const unknown = new RequestMalformedError(
      `contextId "${contextId}" is not one of your conversations with "${expert.slug}"`,
    );
    let conversation: Conversation;
    try {
      conversation = await conversations.get(actor, contextId);
    } catch (error) {
      if (isTroupeError(error, 'conversation_not_found')) throw unknown;
      throw error;
    }
    if (conversation.user_id !== actor.id || conversation.agent_id !== expert.id) throw unknown;
    return conversation;
  }

  /** Every task of the scope (or of one context), with its pending approvals. */
  async function listRuns(contextId: string, tenant: string): Promise<ListedRun[]> {
    const experts =
      scope.expert !== undefined || tenant !== ''
        ? [await expertFor(tenant)]
        : await listPublishedExperts(agents, actor);
    const expertIds = new Set(experts.map((expert) => expert.id));
    let contexts: Conversation[];
    if (contextId !== '') {
      const conversation = await conversations.get(actor, contextId).catch((error: unknown) => {
        if (isTroupeError(error, 'conversation_not_found')) return undefined;
        throw error;
      });
      contexts = conversation ? [conversation] : [];
    } else {
      contexts = [
        ...(await conversations.list(actor, 'active')),
        ...(await conversations.list(actor, 'archived')),
      ];
    }
    const listed: ListedRun[] = [];
    for (const conversation of contexts) {
      if (conversation.user_id !== actor.id || !expertIds.has(conversation.agent_id)) continue;
      for (const run of await runs.listRunsOfConversation(actor, conversation.id)) {
        if (run.user_id !== actor.id || run.created_by_run_id !== null) continue;
        listed.push({ run, pending: await pending(run) });
      }
    }
    return listed;
  }

  return { expertFor, loadTask, pending, ownConversation, listRuns };
}

export type A2ATaskAccess = ReturnType<typeof createA2ATaskAccess>;
