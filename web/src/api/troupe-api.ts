import type { ApiClient } from './api-client.ts';
import type {
  Agent,
  AgentConfig,
  AgentPatchBody,
  Conversation,
  DelegationPolicySettings,
  NewAgentBody,
  PublicToken,
  Run,
  RunListPage,
  RunListQuery,
  RunTrace,
  RunTreeNode,
  StartedRun,
  SubagentRunEntry,
  ThreadMessage,
  User,
} from './types.ts';

const enc = encodeURIComponent;

/** `?status=a,b&kind=…`: only the filters that are set, lists comma-separated. */
export function runListSearch(query: RunListQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query) as [string, string | number | string[] | undefined][]) {
    if (value === undefined || value === '' || (Array.isArray(value) && value.length === 0)) continue;
    params.set(key, Array.isArray(value) ? value.join(',') : String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

export interface SavedAgent {
  agent: Agent;
  warnings?: unknown;
}

/** Every endpoint the console calls, typed. One object per signed-in session. */
export function createTroupeApi(client: ApiClient) {
  const get = <T>(path: string, signal?: AbortSignal) => client.request<T>('GET', path, { signal });
  const send = <T>(method: string, path: string, body?: unknown, signal?: AbortSignal) =>
    client.request<T>(method, path, { body, signal });

  return {
    client,
    me: async (signal?: AbortSignal) => (await get<{ user: User }>('/api/me', signal)).user,

    // agents
    listAgents: async (includeSubagents: boolean, signal?: AbortSignal) =>
      (await get<{ agents: Agent[] }>(`/api/agent?include_subagents=${String(includeSubagents)}`, signal))
        .agents,
    getAgent: async (id: string) => (await get<{ agent: Agent }>(`/api/agent/${enc(id)}`)).agent,
    /** `warnings`: the build report of the saved config, once issue 4 adds it to the response. */
    createAgent: (body: NewAgentBody) => send<SavedAgent>('POST', '/api/agent', body),
    updateAgent: (id: string, body: AgentPatchBody) => send<SavedAgent>('PUT', `/api/agent/${enc(id)}`, body),
    deleteAgent: (id: string) => send<undefined>('DELETE', `/api/agent/${enc(id)}`),
    /** Issue 4's live build report; `route_not_found` until that endpoint exists. */
    buildReport: (config: AgentConfig, signal?: AbortSignal) =>
      send<unknown>('POST', '/api/agent/build-report', { config }, signal),

    // conversations
    listConversations: async (status: 'active' | 'archived' = 'active', signal?: AbortSignal) =>
      (await get<{ conversations: Conversation[] }>(`/api/conversations?status=${status}`, signal))
        .conversations,
    getConversation: async (id: string, signal?: AbortSignal) =>
      (await get<{ conversation: Conversation }>(`/api/conversations/${enc(id)}`, signal)).conversation,
    createConversation: async (agentId: string, title?: string) =>
      (
        await send<{ conversation: Conversation }>('POST', '/api/conversations', {
          agent_id: agentId,
          ...(title ? { title } : {}),
        })
      ).conversation,
    patchConversation: async (id: string, patch: { title?: string; status?: 'active' | 'archived' }) =>
      (await send<{ conversation: Conversation }>('PATCH', `/api/conversations/${enc(id)}`, patch))
        .conversation,
    listMessages: async (conversationId: string, signal?: AbortSignal) =>
      (await get<{ messages: ThreadMessage[] }>(`/api/conversations/${enc(conversationId)}/messages`, signal))
        .messages,
    postMessage: (conversationId: string, content: string, requestId: string) =>
      send<StartedRun>('POST', `/api/conversations/${enc(conversationId)}/messages`, {
        content,
        request_id: requestId,
      }),
    listConversationRuns: async (conversationId: string, signal?: AbortSignal) =>
      (await get<{ runs: Run[] }>(`/api/conversations/${enc(conversationId)}/runs`, signal)).runs,
    /** Issue 3's status panel data; `route_not_found` until that endpoint exists. */
    listSubagentRuns: async (conversationId: string, signal?: AbortSignal) =>
      (
        await get<{ subagents: SubagentRunEntry[] }>(
          `/api/conversations/${enc(conversationId)}/subagents`,
          signal,
        )
      ).subagents,

    // runs
    getRun: async (runId: string, signal?: AbortSignal) =>
      (await get<{ run: Run }>(`/api/agent/runs/${enc(runId)}`, signal)).run,
    cancelRun: async (runId: string) =>
      (await send<{ run: Run }>('POST', `/api/agent/runs/${enc(runId)}/cancel`)).run,
    decideApproval: (runId: string, toolCallId: string, decision: 'approve' | 'reject') =>
      send<unknown>('POST', `/api/agent/runs/${enc(runId)}/approvals/${enc(toolCallId)}`, { decision }),
    runTree: async (runId: string, signal?: AbortSignal) =>
      (await get<{ tree: RunTreeNode }>(`/api/agent/runs/${enc(runId)}/tree`, signal)).tree,
    listRuns: (query: RunListQuery, signal?: AbortSignal) =>
      get<RunListPage>(`/api/agent/runs${runListSearch(query)}`, signal),
    runTrace: async (runId: string, signal?: AbortSignal) =>
      (await get<{ trace: RunTrace }>(`/api/agent/runs/${enc(runId)}/trace`, signal)).trace,
    agentBuildReport: (idOrSlug: string, signal?: AbortSignal) =>
      get<unknown>(`/api/agent/${enc(idOrSlug)}/build-report`, signal),
    listUsers: async (signal?: AbortSignal) => (await get<{ users: User[] }>('/api/users', signal)).users,

    // settings
    listTokens: async () => (await get<{ tokens: PublicToken[] }>('/api/me/tokens')).tokens,
    createToken: (name: string) =>
      send<{ token: string; record: PublicToken }>('POST', '/api/me/tokens', { name }),
    revokeToken: (id: string) => send<undefined>('DELETE', `/api/me/tokens/${enc(id)}`),
    getDelegationPolicy: (signal?: AbortSignal) =>
      get<DelegationPolicySettings>('/api/me/delegation-policy', signal),
    putDelegationPolicy: (settings: { policy: DelegationPolicySettings['policy']; whitelist: string[] }) =>
      send<DelegationPolicySettings>('PUT', '/api/me/delegation-policy', settings),
  };
}

export type TroupeApi = ReturnType<typeof createTroupeApi>;
