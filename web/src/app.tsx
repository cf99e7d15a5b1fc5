import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { createApiClient } from './api/api-client.ts';
import { takePrefetchedBody } from './api/prefetched-responses.ts';
import { createTroupeApi } from './api/troupe-api.ts';
import type { User } from './api/types.ts';
import { AgentsPage } from './components/agents/agents-page.tsx';
import { ChatPage } from './components/chat/chat-page.tsx';
import { AppHeader } from './components/common/app-header.tsx';
import { ErrorMessage } from './components/common/error-message.tsx';
import { LoginPage } from './components/common/login-page.tsx';
import { useLocation } from './hooks/use-location.ts';
import { SessionContext, type Session } from './hooks/use-session.ts';
import { matchRoute, type AppRoute } from './lib/routes.ts';
import { tokenStore } from './lib/token-store.ts';

// Every page but the chat and the agents list (where the console opens) is a chunk of its own, fetched when
// its route is first rendered: the first paint waits only for the pages one lands on.
const TracePage = lazy(async () => ({
  default: (await import('./components/runs/trace-page.tsx')).TracePage,
}));
const RunComparePage = lazy(async () => ({
  default: (await import('./components/runs/run-compare-page.tsx')).RunComparePage,
}));
const AgentEditorPage = lazy(async () => ({
  default: (await import('./components/agents/agent-editor-page.tsx')).AgentEditorPage,
}));
const RunsExplorerPage = lazy(async () => ({
  default: (await import('./components/runs/runs-explorer-page.tsx')).RunsExplorerPage,
}));
const SettingsPage = lazy(async () => ({
  default: (await import('./components/settings/settings-page.tsx')).SettingsPage,
}));
const SkillsPage = lazy(async () => ({
  default: (await import('./components/skills/skills-page.tsx')).SkillsPage,
}));
const KnowledgePage = lazy(async () => ({
  default: (await import('./components/knowledge/knowledge-page.tsx')).KnowledgePage,
}));

function Page({ route }: { route: AppRoute }) {
  switch (route.page) {
    case 'chat':
      return <ChatPage conversationId={route.conversationId} agentId={route.agentId} />;
    case 'agents':
      return <AgentsPage />;
    case 'agent-new':
      return <AgentEditorPage key={`new-${route.kind}`} mode={{ kind: 'create', agentKind: route.kind }} />;
    case 'agent-edit':
      return (
        <AgentEditorPage key={`edit-${route.agentId}`} mode={{ kind: 'edit', agentId: route.agentId }} />
      );
    case 'run-tree':
      return route.runId === null ? (
        <RunsExplorerPage search={route.search} />
      ) : (
        <TracePage runId={route.runId} />
      );
    case 'run-compare':
      return <RunComparePage key={`${route.a}:${route.b}`} a={route.a} b={route.b} />;
    case 'settings':
      return <SettingsPage />;
    case 'skills':
      return <SkillsPage selected={route.skill} />;
    case 'knowledge':
      return <KnowledgePage key={route.sourceId ?? 'none'} sourceId={route.sourceId} />;
    case 'not-found':
      return (
        <main className="page">
          <h1>Not found</h1>
          <p>
            Nothing lives at <code>{route.path}</code>.
          </p>
        </main>
      );
  }
}

export function App() {
  const [token, setToken] = useState<string | null>(() => tokenStore.get());
  // Already read by index.html (api/prefetched-responses.ts): the header names the user in the first render.
  const [user, setUser] = useState<User | null>(
    () => (takePrefetchedBody('/api/me', token) as { user?: User } | undefined)?.user ?? null,
  );
  const [notice, setNotice] = useState<string | null>(null);
  const [startupError, setStartupError] = useState<unknown>(undefined);
  const location = useLocation();
  const route = matchRoute(location.pathname, location.search);

  const signOut = useCallback((message: string | null) => {
    tokenStore.clear();
    setToken(null);
    setUser(null);
    setNotice(message);
  }, []);

  const api = useMemo(() => {
    if (token === null) return null;
    return createTroupeApi(
      createApiClient({
        getToken: () => token,
        onUnauthorized: () => signOut('The server refused the token (401). Sign in again.'),
      }),
    );
  }, [token, signOut]);

  // A stored token is checked once per load; a 401 lands back on the login page through onUnauthorized.
  // The page renders meanwhile, so its own data requests do not wait for this one.
  useEffect(() => {
    if (api === null || user !== null) return undefined;
    const controller = new AbortController();
    api.me(controller.signal).then(
      (me) => {
        if (!controller.signal.aborted) setUser(me);
      },
      (thrown: unknown) => {
        if (!controller.signal.aborted) setStartupError(thrown);
      },
    );
    return () => controller.abort();
  }, [api, user]);

  const session = useMemo<Session | null>(
    () => (api ? { api, user, logout: () => signOut('Signed out.') } : null),
    [api, user, signOut],
  );

  if (token === null) {
    return (
      <LoginPage
        notice={notice}
        onSignedIn={(newToken, me) => {
          tokenStore.set(newToken);
          setNotice(null);
          setStartupError(undefined);
          setUser(me);
          setToken(newToken);
        }}
      />
    );
  }
  // `session` is null only without a token, handled above; the check narrows its type.
  if (session === null || startupError !== undefined) {
    return (
      <main className="login-page">
        <div className="login-card">
          <ErrorMessage error={startupError} context="Could not reach the server" />
          <button type="button" onClick={() => signOut(null)}>
            Back to sign-in
          </button>
        </div>
      </main>
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <div className="app">
        <AppHeader route={route} user={session.user} onLogout={session.logout} />
        <Suspense fallback={<p role="status">Loading…</p>}>
          <Page route={route} />
        </Suspense>
      </div>
    </SessionContext.Provider>
  );
}
