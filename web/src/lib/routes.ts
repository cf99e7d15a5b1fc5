export type AppRoute =
  | { page: 'chat'; conversationId: string | null; agentId: string | null }
  | { page: 'agents' }
  | { page: 'agent-new'; kind: 'agent' | 'subagent' | 'expert' }
  | { page: 'agent-edit'; agentId: string }
  | { page: 'run-tree'; runId: string | null; search: string }
  | { page: 'run-compare'; a: string; b: string }
  | { page: 'settings' }
  | { page: 'skills'; skill: string | null }
  | { page: 'knowledge'; sourceId: string | null }
  | { page: 'not-found'; path: string };

/** Client-side routes; the server answers `index.html` for every non-API path, so deep links work. */
export function matchRoute(pathname: string, search: string): AppRoute {
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(search);
  const [first, second, third] = parts;
  if (first === undefined) return { page: 'chat', conversationId: null, agentId: null };
  if (first === 'chat') return { page: 'chat', conversationId: second ?? null, agentId: params.get('agent') };
  if (first === 'agents') {
    if (second === undefined) return { page: 'agents' };
    if (second === 'new') {
      const kind = params.get('kind');
      return { page: 'agent-new', kind: kind === 'subagent' || kind === 'expert' ? kind : 'agent' };
    }
    if (third === 'edit') return { page: 'agent-edit', agentId: second };
  }
  if (first === 'runs' && second === 'compare')
    return { page: 'run-compare', a: params.get('a') ?? '', b: params.get('b') ?? '' };
  if (first === 'runs') return { page: 'run-tree', runId: second ?? null, search };
  if (first === 'settings') return { page: 'settings' };
  if (first === 'skills') return { page: 'skills', skill: second ?? null };
  if (first === 'knowledge') return { page: 'knowledge', sourceId: second ?? null };
  return { page: 'not-found', path: pathname };
}

export const paths = {
  chat: (conversationId?: string) =>
    conversationId ? `/chat/${encodeURIComponent(conversationId)}` : '/chat',
  /** A new chat, its agent picked: the conversation is created when the first message is sent. */
  newChat: (agentId?: string) => (agentId ? `/chat?agent=${encodeURIComponent(agentId)}` : '/chat'),
  agents: () => '/agents',
  newAgent: (kind: 'agent' | 'subagent' | 'expert') => `/agents/new?kind=${kind}`,
  editAgent: (id: string) => `/agents/${encodeURIComponent(id)}/edit`,
  /** `/runs` is the runs explorer; `/runs/{id}` the trace of that run's tree. */
  runTree: (runId?: string) => (runId ? `/runs/${encodeURIComponent(runId)}` : '/runs'),
  runs: (search = '') => `/runs${search}`,
  trace: (runId: string) => `/runs/${encodeURIComponent(runId)}`,
  /** Two runs side by side (docs/effects-and-forks.md#compare). */
  compare: (a: string, b: string) => `/runs/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`,
  settings: () => '/settings',
  skills: (name?: string) => (name ? `/skills/${encodeURIComponent(name)}` : '/skills'),
  knowledge: (sourceId?: string) => (sourceId ? `/knowledge/${encodeURIComponent(sourceId)}` : '/knowledge'),
};
