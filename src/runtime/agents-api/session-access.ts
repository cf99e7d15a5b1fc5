import { TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Agent } from '../../core/records/agent.js';
import type { Conversation } from '../../core/records/conversation.js';
import type { RunView, ToolApproval } from '../../core/records/run.js';
import { isTerminalStatus } from '../../core/records/run.js';
import type { Actor } from '../../core/records/user.js';
import { inlineSubagentName } from '../../core/subagents/inline-subagent-agent.js';
import type { RunViews } from '../runs/inspect/run-views.js';
import type { ApiSession } from './agents-api-objects.js';
import { toApiSession } from './session-object.js';
import type { ChildConversation } from './subagent-object.js';

export interface SessionAccessDependencies {
  storage: Storage;
  runViews: RunViews;
  defaultModel: string;
  /** Whether this server's `execute` sandbox works (the catalogue has the tool). */
  executeAvailable: boolean;
}

/** A session with what its answers are built from: its turns oldest first and the last one's pending inputs. */
export interface LoadedSession {
  conversation: Conversation;
  agent: Agent | undefined;
  runs: RunView[];
  pending: ToolApproval[];
}

function sessionNotFound(id: string): TroupeError {
  return new TroupeError('session_not_found', `Session "${id}" not found`);
}

/**
 * Which conversations are the caller's sessions, and the records behind them. A session is one of the
 * caller's own active main conversations (even an admin sees only their own: others' ids are
 * `404 session_not_found`, as are archived — deleted — ones and subagent or delegation conversations).
 */
export function createSessionAccess(deps: SessionAccessDependencies) {
  const { storage, runViews } = deps;

  function isSession(actor: Actor, conversation: Conversation | undefined): conversation is Conversation {
    return conversation?.user_id === actor.id && conversation.status === 'active';
  }

  async function conversationOf(actor: Actor, id: string): Promise<Conversation> {
    const conversation = await storage.conversations.get(id);
    if (!isSession(actor, conversation)) throw sessionNotFound(id);
    return conversation;
  }

  async function pendingOf(last: RunView | undefined): Promise<ToolApproval[]> {
    if (last === undefined || isTerminalStatus(last.status) || last.status === 'pending') return [];
    return (await storage.approvals.listForRun(last.id)).filter((input) => input.status === 'pending');
  }

  async function loadParts(conversation: Conversation): Promise<LoadedSession> {
    const runs = (await runViews.views(await storage.runs.listByConversation(conversation.id))).reverse();
    const agent = await storage.agents.get(conversation.agent_id);
    return {
      conversation,
      agent: agent?.deleted_at ? undefined : agent,
      runs,
      pending: await pendingOf(runs.at(-1)),
    };
  }

  function toSession(loaded: LoadedSession): ApiSession {
    return toApiSession({
      ...loaded,
      defaultModel: deps.defaultModel,
      executeAvailable: deps.executeAvailable,
    });
  }

  /** The child conversations of a session (subagents and delegations), each with its runs, oldest first. */
  async function childConversations(conversation: Conversation): Promise<ChildConversation[]> {
    const children = await runViews.withLiveUsage(
      await storage.runs.listChildrenInConversation(conversation.id),
    );
    const parents = new Map(
      (await storage.runs.getMany([...new Set(children.map((run) => run.created_by_run_id ?? ''))])).map(
        (run) => [run.id, run],
      ),
    );
    const byConversation = new Map<string, ChildConversation>();
    for (const run of children) {
      const known = byConversation.get(run.conversation_id);
      if (known) {
        known.runs.push(run);
        continue;
      }
      const agent =
        inlineSubagentName(run) === undefined ? await storage.agents.get(run.agent_id) : undefined;
      byConversation.set(run.conversation_id, {
        conversationId: run.conversation_id,
        runs: [run],
        name: inlineSubagentName(run) ?? agent?.slug ?? null,
        parentAgentId: parents.get(run.created_by_run_id ?? '')?.agent_id ?? conversation.agent_id,
      });
    }
    // A subagent continued later (`subagent_send_input`) runs again in its conversation: those runs are turns too.
    for (const child of byConversation.values()) {
      const all = await storage.runs.listByConversation(child.conversationId);
      if (all.length > child.runs.length) child.runs = (await runViews.withLiveUsage(all)).reverse();
    }
    return [...byConversation.values()];
  }

  async function childOf(actor: Actor, sessionId: string, subagentId: string) {
    const conversation = await conversationOf(actor, sessionId);
    const child = (await childConversations(conversation)).find(
      (entry) => entry.conversationId === subagentId,
    );
    if (!child)
      throw new TroupeError('subagent_not_found', `Subagent "${subagentId}" not found in this session`);
    return { conversation, child };
  }

  return {
    isSession,
    conversationOf,
    async load(actor: Actor, id: string): Promise<LoadedSession> {
      return loadParts(await conversationOf(actor, id));
    },
    loadParts,
    toSession,
    childConversations,
    childOf,
  };
}

export type SessionAccess = ReturnType<typeof createSessionAccess>;
