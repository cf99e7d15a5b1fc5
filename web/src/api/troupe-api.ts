import type { ApiClient } from './api-client.ts';
import { errorFromResponse } from './api-client.ts';
import type {
  Agent,
  AgentConfig,
  ArtifactView,
  AttachmentView,
  AgentPatchBody,
  Conversation,
  DelegationPolicySettings,
  NewAgentBody,
  PublicToken,
  Run,
  RunTreeNode,
  StartedRun,
  SubagentRunEntry,
  ThreadMessage,
  User,
} from './types.ts';

const enc = encodeURIComponent;

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
    postMessage: (conversationId: string, content: string, requestId: string, attachments: string[] = []) =>
      send<StartedRun>('POST', `/api/conversations/${enc(conversationId)}/messages`, {
        content,
        request_id: requestId,
        ...(attachments.length > 0 ? { attachments } : {}),
      }),
    listArtifacts: async (conversationId: string, signal?: AbortSignal) =>
      (await get<{ artifacts: ArtifactView[] }>(`/api/conversations/${enc(conversationId)}/artifacts`, signal))
        .artifacts,
    /** The file as a Blob: downloads need the bearer token, so they go through fetch, not a plain link. */
    downloadArtifact: async (conversationId: string, artifactId: string): Promise<Blob> => {
      const response = await client.raw(
        `/api/conversations/${enc(conversationId)}/artifacts/${enc(artifactId)}/download`,
      );
      if (!response.ok) throw await errorFromResponse(response);
      return response.blob();
    },
    uploadAttachments: async (conversationId: string, files: readonly File[]): Promise<AttachmentView[]> => {
      const form = new FormData();
      for (const file of files) form.append('files', file, file.name);
      // No content-type header: the browser sets multipart/form-data with its boundary.
      const response = await client.raw(`/api/conversations/${enc(conversationId)}/attachments`, {
        method: 'POST',
        body: form,
      });
      if (!response.ok) throw await errorFromResponse(response);
      return ((await response.json()) as { attachments: AttachmentView[] }).attachments;
    },
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
    answerQuestion: (runId: string, toolCallId: string, answers: string[]) =>
      send<unknown>('POST', `/api/agent/runs/${enc(runId)}/answers/${enc(toolCallId)}`, { answers }),
    runTree: async (runId: string, signal?: AbortSignal) =>
      (await get<{ tree: RunTreeNode }>(`/api/agent/runs/${enc(runId)}/tree`, signal)).tree,

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
