import { TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Actor } from '../../core/records/user.js';
import type { AgentService } from '../agents/agent-service.js';
import type { ArtifactDownload, ArtifactService } from '../artifacts/artifact-service.js';
import type { ConversationService } from '../conversations/conversation-service.js';
import type { RunViews } from '../runs/inspect/run-views.js';
import type { RunServiceApi } from '../runs/run-service-api.js';
import type {
  ApiAgent,
  ApiArtifact,
  ApiItem,
  ApiPage,
  ApiSession,
  ApiSubagent,
  ApiTurn,
} from './agents-api-objects.js';
import { UNNAMED_AGENT, configAfter, toApiAgent, type AgentWrite } from './agent-object.js';
import { cursorPage, type PageQuery } from './cursor-page.js';
import { createSessionAccess } from './session-access.js';
import { openSessionStream, type SessionEvent } from './session-event-stream.js';
import { SessionWakeups } from './session-wakeups.js';
import {
  checkEnvironment,
  sessionExtras,
  withSessionExtras,
  type EnvironmentRequest,
} from './session-environment.js';
import { applySessionInput, type SessionInputEvent } from './session-input.js';
import { threadItems } from './session-items.js';
import { toApiSubagent } from './subagent-object.js';
import { runToTurn, seconds } from './turn-object.js';

export interface CreateSessionInput {
  agent_id: string;
  environment: EnvironmentRequest;
  input?: string | (SessionInputEvent & { type: 'agent.session.input.message' }) | undefined;
  metadata?: Record<string, string> | null | undefined;
  idempotencyKey?: string | undefined;
}

export interface SessionListQuery extends PageQuery {
  agent_id?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

/**
 * OpenAI's Agents API shape over Troupe's own records (docs/interoperability.md#openai-agents-api): an agent
 * is a main agent the caller may use, a session one of their conversations, a turn a run of it, a subagent a
 * child conversation. Nothing here runs anything itself: turns are started, decided and cancelled through the
 * run service, exactly as the `/api` routes do, and every answer is read from storage.
 */
export interface AgentsApiService {
  listAgents(actor: Actor, query: PageQuery): Promise<ApiPage<ApiAgent>>;
  getAgent(actor: Actor, id: string): Promise<ApiAgent>;
  createAgent(actor: Actor, write: AgentWrite & { model: string }): Promise<ApiAgent>;
  updateAgent(actor: Actor, id: string, write: AgentWrite): Promise<ApiAgent>;
  deleteAgent(actor: Actor, id: string): Promise<{ id: string; object: 'agent.deleted'; deleted: true }>;
  createSession(actor: Actor, input: CreateSessionInput): Promise<ApiSession>;
  listSessions(actor: Actor, query: SessionListQuery): Promise<ApiPage<ApiSession>>;
  getSession(actor: Actor, id: string): Promise<ApiSession>;
  updateSession(
    actor: Actor,
    id: string,
    metadata: Record<string, string> | null | undefined,
  ): Promise<ApiSession>;
  deleteSession(
    actor: Actor,
    id: string,
  ): Promise<{ id: string; object: 'agent.session.deleted'; deleted: true }>;
  postEvents(
    actor: Actor,
    id: string,
    events: readonly SessionInputEvent[],
    idempotencyKey?: string,
  ): Promise<void>;
  listTurns(actor: Actor, id: string, query: PageQuery): Promise<ApiPage<ApiTurn>>;
  getTurn(actor: Actor, id: string, turnId: string): Promise<ApiTurn>;
  listItems(actor: Actor, id: string, query: PageQuery, turnId?: string): Promise<ApiPage<ApiItem>>;
  listSubagents(actor: Actor, id: string, query: PageQuery): Promise<ApiPage<ApiSubagent>>;
  getSubagent(actor: Actor, id: string, subagentId: string): Promise<ApiSubagent>;
  listSubagentTurns(
    actor: Actor,
    id: string,
    subagentId: string,
    query: PageQuery,
  ): Promise<ApiPage<ApiTurn>>;
  getSubagentTurn(actor: Actor, id: string, subagentId: string, turnId: string): Promise<ApiTurn>;
  listSubagentItems(
    actor: Actor,
    id: string,
    subagentId: string,
    query: PageQuery,
    turnId?: string,
  ): Promise<ApiPage<ApiItem>>;
  listArtifacts(actor: Actor, id: string, query: PageQuery): Promise<ApiPage<ApiArtifact>>;
  getArtifact(actor: Actor, id: string, artifactId: string): Promise<ApiArtifact>;
  artifactContent(actor: Actor, id: string, artifactId: string): Promise<ArtifactDownload>;
  deleteArtifact(
    actor: Actor,
    id: string,
    artifactId: string,
  ): Promise<{ id: string; object: 'agent.session.artifact.deleted'; deleted: true }>;
  /**
   * The session's live events (see `openSessionStream`); a session the actor cannot see fails here, before the
   * stream starts.
   */
  openEvents(actor: Actor, id: string, signal: AbortSignal): Promise<AsyncGenerator<SessionEvent>>;
}

export interface AgentsApiDependencies {
  storage: Storage;
  agents: AgentService;
  conversations: ConversationService;
  runs: RunServiceApi;
  runViews: RunViews;
  artifacts: ArtifactService;
  defaultModel: string;
  executeAvailable: boolean;
  /** How often an event stream looks for turns another process started; default 1 s. */
  sessionPollMs?: number;
}

function turnNotFound(turnId: string): TroupeError {
  return new TroupeError('turn_not_found', `Turn "${turnId}" not found in this session`);
}

export function createAgentsApiService(deps: AgentsApiDependencies): AgentsApiService {
  const { storage, agents, conversations, runs, defaultModel } = deps;
  const access = createSessionAccess(deps);
  const wakeups = new SessionWakeups();

  /** A main agent the actor may use; a subagent is not an agent of this API. */
  async function usableAgent(actor: Actor, id: string) {
    const agent = await agents.get(actor, id);
    if (agent.is_subagent) throw new TroupeError('agent_not_found', `Agent "${id}" not found`);
    return agent;
  }

  async function artifactOf(actor: Actor, id: string, artifactId: string) {
    const conversation = await access.conversationOf(actor, id);
    const artifact = await storage.artifacts.get(artifactId);
    if (artifact?.conversation_id !== conversation.id) {
      throw new TroupeError('artifact_not_found', `Artifact "${artifactId}" not found in this session`);
    }
    return { conversation, artifact };
  }

  function apiArtifact(
    artifact: {
      id: string;
      conversation_id: string;
      run_id: string;
      path: string;
      size: number;
      created_at: string;
    },
    projectId: string,
  ): ApiArtifact {
    return {
      id: artifact.id,
      object: 'agent.session.artifact',
      session_id: artifact.conversation_id,
      turn_id: artifact.run_id,
      environment_id: projectId,
      path: artifact.path,
      size_bytes: artifact.size,
      created_at: seconds(artifact.created_at),
    };
  }

  return {
    openEvents: (actor, id, signal) =>
      openSessionStream({
        actor,
        sessionId: id,
        access,
        runs,
        wakeups,
        signal,
        ...(deps.sessionPollMs !== undefined ? { pollMs: deps.sessionPollMs } : {}),
      }),

    async listAgents(actor, query) {
      const list = (await agents.list(actor)).filter((agent) => !agent.is_subagent);
      // Oldest first, so a page cursor stays put while agents are added.
      list.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
      return cursorPage(
        list.map((agent) => toApiAgent(agent, defaultModel)),
        query,
      );
    },

    async getAgent(actor, id) {
      return toApiAgent(await usableAgent(actor, id), defaultModel);
    },

    async createAgent(actor, write) {
      const agent = await agents.create(actor, {
        name: write.name ?? UNNAMED_AGENT,
        config: configAfter({}, write),
      });
      return toApiAgent(agent, defaultModel);
    },

    async updateAgent(actor, id, write) {
      const agent = await usableAgent(actor, id);
      const updated = await agents.update(actor, agent.id, {
        ...(write.name !== undefined ? { name: write.name ?? UNNAMED_AGENT } : {}),
        config: configAfter(agent.config, write),
      });
      return toApiAgent(updated, defaultModel);
    },

    async deleteAgent(actor, id) {
      const agent = await usableAgent(actor, id);
      await agents.delete(actor, agent.id);
      return { id: agent.id, object: 'agent.deleted', deleted: true };
    },

    async createSession(actor, input) {
      const agent = await usableAgent(actor, input.agent_id).catch((error: unknown) => {
        if (error instanceof TroupeError && error.code === 'agent_not_found')
          throw new TroupeError(error.code, error.message, { details: { param: 'agent_id' } });
        throw error;
      });
      const environment = checkEnvironment(input.environment, agent, deps.executeAvailable);
      const created = await conversations.create(actor, { agent_id: agent.id });
      const conversation = await storage.conversations.update(created.id, {
        metadata: withSessionExtras(created, { environment, metadata: input.metadata ?? {} }),
      });
      if (input.input !== undefined) {
        const message =
          typeof input.input === 'string'
            ? {
                type: 'agent.session.input.message' as const,
                input: [
                  { role: 'user' as const, content: [{ type: 'input_text' as const, text: input.input }] },
                ],
              }
            : input.input;
        await applySessionInput(
          { actor, runs, storage, conversation, last: undefined, idempotencyKey: input.idempotencyKey },
          [message],
        );
        wakeups.notify(conversation.id);
      }
      return access.toSession(await access.loadParts(conversation));
    },

    async listSessions(actor, query) {
      const wanted = query.metadata ?? {};
      const list = (await conversations.list(actor, 'active'))
        .filter((conversation) => conversation.user_id === actor.id)
        .filter((conversation) => query.agent_id === undefined || conversation.agent_id === query.agent_id)
        .filter((conversation) => {
          const metadata = sessionExtras(conversation).metadata;
          return Object.entries(wanted).every(([key, value]) => metadata[key] === value);
        })
        .reverse();
      // Paged on the conversations; only the page's sessions are built.
      const page = cursorPage(list, query);
      const data: ApiSession[] = [];
      for (const conversation of page.data) data.push(access.toSession(await access.loadParts(conversation)));
      return { ...page, data };
    },

    async getSession(actor, id) {
      return access.toSession(await access.load(actor, id));
    },

    async updateSession(actor, id, metadata) {
      const conversation = await access.conversationOf(actor, id);
      if (metadata !== undefined) {
        const extras = sessionExtras(conversation);
        await storage.conversations.update(conversation.id, {
          metadata: withSessionExtras(conversation, { ...extras, metadata: metadata ?? {} }),
        });
      }
      return access.toSession(await access.load(actor, id));
    },

    async deleteSession(actor, id) {
      const conversation = await access.conversationOf(actor, id);
      await conversations.patch(actor, conversation.id, { status: 'archived' });
      return { id: conversation.id, object: 'agent.session.deleted', deleted: true };
    },

    async postEvents(actor, id, events, idempotencyKey) {
      const loaded = await access.load(actor, id);
      await applySessionInput(
        { actor, runs, storage, conversation: loaded.conversation, last: loaded.runs.at(-1), idempotencyKey },
        events,
      );
      wakeups.notify(loaded.conversation.id);
    },

    async listTurns(actor, id, query) {
      const loaded = await access.load(actor, id);
      return cursorPage(
        loaded.runs.map((run) => runToTurn(run, id, null)),
        query,
      );
    },

    async getTurn(actor, id, turnId) {
      const loaded = await access.load(actor, id);
      const run = loaded.runs.find((entry) => entry.id === turnId);
      if (!run) throw turnNotFound(turnId);
      return runToTurn(run, id, null);
    },

    async listItems(actor, id, query, turnId) {
      const conversation = await access.conversationOf(actor, id);
      let messages = await storage.messages.list(conversation.thread_id);
      if (turnId !== undefined) {
        const run = await storage.runs.get(turnId);
        if (run?.conversation_id !== conversation.id) throw turnNotFound(turnId);
        messages = messages.filter((message) => message.run_id === turnId);
      }
      return cursorPage(threadItems(messages), query);
    },

    async listSubagents(actor, id, query) {
      const conversation = await access.conversationOf(actor, id);
      const children = await access.childConversations(conversation);
      return cursorPage(
        children.map((child) => toApiSubagent(id, child)),
        query,
      );
    },

    async getSubagent(actor, id, subagentId) {
      const { child } = await access.childOf(actor, id, subagentId);
      return toApiSubagent(id, child);
    },

    async listSubagentTurns(actor, id, subagentId, query) {
      const { child } = await access.childOf(actor, id, subagentId);
      const views = await deps.runViews.views(child.runs);
      return cursorPage(
        views.map((run) => runToTurn(run, id, subagentId)),
        query,
      );
    },

    async getSubagentTurn(actor, id, subagentId, turnId) {
      const { child } = await access.childOf(actor, id, subagentId);
      const run = child.runs.find((entry) => entry.id === turnId);
      if (!run) throw turnNotFound(turnId);
      return runToTurn(await deps.runViews.view(run), id, subagentId);
    },

    async listSubagentItems(actor, id, subagentId, query, turnId) {
      const { child } = await access.childOf(actor, id, subagentId);
      const first = child.runs[0];
      if (turnId !== undefined && !child.runs.some((run) => run.id === turnId)) throw turnNotFound(turnId);
      const messages = first ? await storage.messages.list(first.thread_id) : [];
      const mine = turnId === undefined ? messages : messages.filter((message) => message.run_id === turnId);
      return cursorPage(threadItems(mine), query);
    },

    async listArtifacts(actor, id, query) {
      const conversation = await access.conversationOf(actor, id);
      const list = await storage.artifacts.listForConversation(conversation.id);
      return cursorPage(
        list.map((artifact) => apiArtifact(artifact, conversation.project_id)),
        query,
      );
    },

    async getArtifact(actor, id, artifactId) {
      const { conversation, artifact } = await artifactOf(actor, id, artifactId);
      return apiArtifact(artifact, conversation.project_id);
    },

    async artifactContent(actor, id, artifactId) {
      const { conversation, artifact } = await artifactOf(actor, id, artifactId);
      return deps.artifacts.download(actor, conversation.id, artifact.id);
    },

    async deleteArtifact(actor, id, artifactId) {
      const { artifact } = await artifactOf(actor, id, artifactId);
      await storage.artifacts.delete(artifact.id);
      return { id: artifact.id, object: 'agent.session.artifact.deleted', deleted: true };
    },
  };
}
