import type { ApiClient } from './api-client.ts';
import { errorFromResponse } from './api-client.ts';
import type {
  AddedKnowledgeDocument,
  Agent,
  AgentConfig,
  ArtifactView,
  AttachmentView,
  AgentPatchBody,
  Conversation,
  DelegationPolicySettings,
  KnowledgeDocument,
  KnowledgeSearchResponse,
  KnowledgeSource,
  NewAgentBody,
  PublicToken,
  Run,
  SavedSkill,
  Skill,
  SkillDetail,
  RunListPage,
  RunListQuery,
  RunTrace,
  RunTreeNode,
  RunComparison,
  ForkBody,
  ForkedRun,
  InspectedStep,
  ServerLimits,
  StartedRun,
  SubagentRunEntry,
  ThreadMessage,
  User,
} from './types.ts';

const enc = encodeURIComponent;

/** `?status=a,b&kind=…`: only the filters that are set, lists comma-separated. */
export function runListSearch(query: RunListQuery): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query) as [
    string,
    string | number | boolean | string[] | undefined,
  ][]) {
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
  const conversationPath = (id: string) => `/api/conversations/${enc(id)}`;
  const activeConversationsPath = '/api/conversations?status=active';
  const send = <T>(method: string, path: string, body?: unknown, signal?: AbortSignal) =>
    client.request<T>(method, path, { body, signal });

  return {
    client,
    /**
     * The first page's reads index.html has already answered, each once, for the first render; undefined
     * when not (yet) there: then load as usual.
     */
    ready: {
      me: () => client.prefetched<{ user: User }>('/api/me')?.user,
      activeConversations: () =>
        client.prefetched<{ conversations: Conversation[] }>(activeConversationsPath)?.conversations,
      conversation: (id: string) =>
        client.prefetched<{ conversation: Conversation }>(conversationPath(id))?.conversation,
      messages: (id: string) =>
        client.prefetched<{ messages: ThreadMessage[] }>(`${conversationPath(id)}/messages`)?.messages,
      runs: (id: string) => client.prefetched<{ runs: Run[] }>(`${conversationPath(id)}/runs`)?.runs,
      agent: (id: string) => client.prefetched<{ agent: Agent }>(`/api/agent/${enc(id)}`)?.agent,
    },
    me: async (signal?: AbortSignal) => (await get<{ user: User }>('/api/me', signal)).user,
    limits: async (signal?: AbortSignal) =>
      (await get<{ limits: ServerLimits }>('/api/limits', signal)).limits,

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
    /** With `agentId`, redacted MCP secrets in the draft take that agent's stored values (docs/egress-and-secrets.md). */
    buildReport: (config: AgentConfig, signal?: AbortSignal, agentId?: string) =>
      send<unknown>(
        'POST',
        '/api/agent/build-report',
        agentId ? { config, agent_id: agentId } : { config },
        signal,
      ),

    // conversations
    /** `query`: only conversations whose title contains it (the server searches, per user). */
    listConversations: async (status: 'active' | 'archived' = 'active', signal?: AbortSignal, query = '') =>
      (
        await get<{ conversations: Conversation[] }>(
          status === 'active' && query.trim() === ''
            ? activeConversationsPath
            : `/api/conversations?status=${status}${query.trim() === '' ? '' : `&q=${enc(query.trim())}`}`,
          signal,
        )
      ).conversations,
    getConversation: async (id: string, signal?: AbortSignal) =>
      (await get<{ conversation: Conversation }>(conversationPath(id), signal)).conversation,
    createConversation: async (agentId: string, title?: string) =>
      (
        await send<{ conversation: Conversation }>('POST', '/api/conversations', {
          agent_id: agentId,
          ...(title ? { title } : {}),
        })
      ).conversation,
    patchConversation: async (id: string, patch: { title?: string; status?: 'active' | 'archived' }) =>
      (await send<{ conversation: Conversation }>('PATCH', conversationPath(id), patch)).conversation,
    listMessages: async (conversationId: string, signal?: AbortSignal) =>
      (await get<{ messages: ThreadMessage[] }>(`${conversationPath(conversationId)}/messages`, signal))
        .messages,
    postMessage: (conversationId: string, content: string, requestId: string, attachments: string[] = []) =>
      send<StartedRun>('POST', `${conversationPath(conversationId)}/messages`, {
        content,
        request_id: requestId,
        ...(attachments.length > 0 ? { attachments } : {}),
      }),
    listArtifacts: async (conversationId: string, signal?: AbortSignal) =>
      (await get<{ artifacts: ArtifactView[] }>(`${conversationPath(conversationId)}/artifacts`, signal))
        .artifacts,
    /** The file as a Blob: downloads need the bearer token, so they go through fetch, not a plain link. */
    downloadArtifact: async (conversationId: string, artifactId: string): Promise<Blob> => {
      const response = await client.raw(
        `${conversationPath(conversationId)}/artifacts/${enc(artifactId)}/download`,
      );
      if (!response.ok) throw await errorFromResponse(response);
      return response.blob();
    },
    uploadAttachments: async (conversationId: string, files: readonly File[]): Promise<AttachmentView[]> => {
      const form = new FormData();
      for (const file of files) form.append('files', file, file.name);
      // No content-type header: the browser sets multipart/form-data with its boundary.
      const response = await client.raw(`${conversationPath(conversationId)}/attachments`, {
        method: 'POST',
        body: form,
      });
      if (!response.ok) throw await errorFromResponse(response);
      return ((await response.json()) as { attachments: AttachmentView[] }).attachments;
    },
    listConversationRuns: async (conversationId: string, signal?: AbortSignal) =>
      (await get<{ runs: Run[] }>(`${conversationPath(conversationId)}/runs`, signal)).runs,
    /** Issue 3's status panel data; `route_not_found` until that endpoint exists. */
    listSubagentRuns: async (conversationId: string, signal?: AbortSignal) =>
      (await get<{ subagents: SubagentRunEntry[] }>(`${conversationPath(conversationId)}/subagents`, signal))
        .subagents,

    // runs
    getRun: async (runId: string, signal?: AbortSignal) =>
      (await get<{ run: Run }>(`/api/agent/runs/${enc(runId)}`, signal)).run,
    cancelRun: async (runId: string) =>
      (await send<{ run: Run }>('POST', `/api/agent/runs/${enc(runId)}/cancel`)).run,
    /** `scope: 'run'` approves the tool for the rest of the run; `comment` is the reason a rejection gives. */
    decideApproval: (
      runId: string,
      toolCallId: string,
      decision: 'approve' | 'reject',
      options: { scope?: 'call' | 'run'; comment?: string } = {},
    ) =>
      send<unknown>('POST', `/api/agent/runs/${enc(runId)}/approvals/${enc(toolCallId)}`, {
        decision,
        ...(options.scope === 'run' ? { scope: 'run' } : {}),
        ...(options.comment?.trim() ? { comment: options.comment.trim() } : {}),
      }),
    answerQuestion: (runId: string, toolCallId: string, answers: string[]) =>
      send<unknown>('POST', `/api/agent/runs/${enc(runId)}/answers/${enc(toolCallId)}`, { answers }),
    runTree: async (runId: string, signal?: AbortSignal) =>
      (await get<{ tree: RunTreeNode }>(`/api/agent/runs/${enc(runId)}/tree`, signal)).tree,
    listRuns: (query: RunListQuery, signal?: AbortSignal) =>
      get<RunListPage>(`/api/agent/runs${runListSearch(query)}`, signal),
    runTrace: async (runId: string, signal?: AbortSignal) =>
      (await get<{ trace: RunTrace }>(`/api/agent/runs/${enc(runId)}/trace`, signal)).trace,
    forkRun: (runId: string, body: ForkBody) =>
      send<ForkedRun>('POST', `/api/agent/runs/${enc(runId)}/fork`, body),
    compareRuns: async (a: string, b: string, signal?: AbortSignal) =>
      (await get<{ comparison: RunComparison }>(`/api/agent/runs/${enc(a)}/compare/${enc(b)}`, signal))
        .comparison,
    runStep: async (runId: string, step: number, signal?: AbortSignal) =>
      (await get<{ step: InspectedStep }>(`/api/agent/runs/${enc(runId)}/steps/${step}`, signal)).step,
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

    // skills
    listSkills: async (signal?: AbortSignal) =>
      (await get<{ skills: Skill[] }>('/api/skills', signal)).skills,
    getSkill: (idOrName: string, signal?: AbortSignal) =>
      get<SkillDetail>(`/api/skills/${enc(idOrName)}`, signal),
    /** The archive goes as raw bytes: the server reads the kind (.zip or .tar.gz) from its magic bytes. */
    uploadSkill: async (archive: Blob, options: { visibility: Skill['visibility']; replace: boolean }) => {
      const query = new URLSearchParams({ visibility: options.visibility, replace: String(options.replace) });
      const response = await client.raw(`/api/skills?${query.toString()}`, {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/octet-stream' },
        body: archive,
      });
      if (!response.ok) throw await errorFromResponse(response);
      return (await response.json()) as SavedSkill;
    },
    setSkillVisibility: async (idOrName: string, visibility: Skill['visibility']) =>
      (await send<{ skill: Skill }>('PATCH', `/api/skills/${enc(idOrName)}`, { visibility })).skill,
    deleteSkill: (idOrName: string) => send<undefined>('DELETE', `/api/skills/${enc(idOrName)}`),
    // knowledge sources
    listKnowledge: async (signal?: AbortSignal) =>
      (await get<{ sources: KnowledgeSource[] }>('/api/knowledge', signal)).sources,
    createKnowledge: async (body: {
      name: string;
      description?: string;
      visibility?: KnowledgeSource['visibility'];
    }) => (await send<{ source: KnowledgeSource }>('POST', '/api/knowledge', body)).source,
    deleteKnowledge: (id: string) => send<undefined>('DELETE', `/api/knowledge/${enc(id)}`),
    listKnowledgeDocuments: async (id: string, signal?: AbortSignal) =>
      (await get<{ documents: KnowledgeDocument[] }>(`/api/knowledge/${enc(id)}/documents`, signal))
        .documents,
    /** Multipart upload: the browser sets the boundary, so no JSON helper here. */
    uploadKnowledgeDocuments: async (id: string, files: readonly File[]) => {
      const form = new FormData();
      for (const file of files) form.append('file', file, file.name);
      const response = await client.raw(`/api/knowledge/${enc(id)}/documents`, {
        method: 'POST',
        body: form,
      });
      if (!response.ok) throw await errorFromResponse(response);
      return ((await response.json()) as { documents: AddedKnowledgeDocument[] }).documents;
    },
    deleteKnowledgeDocument: (id: string, documentId: string) =>
      send<undefined>('DELETE', `/api/knowledge/${enc(id)}/documents/${enc(documentId)}`),
    searchKnowledge: (id: string, query: string, topK?: number) =>
      send<KnowledgeSearchResponse>('POST', `/api/knowledge/${enc(id)}/search`, {
        query,
        ...(topK === undefined ? {} : { top_k: topK }),
      }),
  };
}

export type TroupeApi = ReturnType<typeof createTroupeApi>;
