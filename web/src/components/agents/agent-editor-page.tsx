import { useState } from 'react';
import type { AgentConfig } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { navigate } from '../../hooks/use-location.ts';
import { useSession } from '../../hooks/use-session.ts';
import {
  agentKind,
  createBody,
  emptyFormState,
  formStateFromAgent,
  patchBody,
  type AgentFormState,
  type AgentKind,
} from '../../lib/agent-form-state.ts';
import { normaliseBuildReport, type BuildWarning } from '../../lib/build-report.ts';
import { paths } from '../../lib/routes.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { AgentForm } from './agent-form.tsx';
import { BuildWarningList } from './build-warning-list.tsx';

export type EditorMode = { kind: 'create'; agentKind: AgentKind } | { kind: 'edit'; agentId: string };

const TITLES: Record<AgentKind, string> = { agent: 'agent', subagent: 'subagent', expert: 'expert' };

export function AgentEditorPage({ mode }: { mode: EditorMode }) {
  const { api } = useSession();
  // After a create that came back with warnings the page stays, now editing the created agent.
  const [createdId, setCreatedId] = useState<string | null>(null);
  const agentId = mode.kind === 'edit' ? mode.agentId : createdId;
  const agent = useAsync(
    (_signal) => (agentId === null ? Promise.resolve(null) : api.getAgent(agentId)),
    [api, agentId],
  );
  const subagents = useAsync(
    async (signal) => (await api.listAgents(true, signal)).filter((candidate) => candidate.is_subagent),
    [api],
  );
  const skills = useAsync((signal) => api.listSkills(signal), [api]);
  const knowledgeSources = useAsync((signal) => api.listKnowledge(signal), [api]);
  const [savedWarnings, setSavedWarnings] = useState<BuildWarning[] | null>(null);

  const save = async (state: AgentFormState, config: AgentConfig) => {
    const saved =
      agentId === null
        ? await api.createAgent(createBody(state, config))
        : await api.updateAgent(agentId, patchBody(state, config));
    const warnings = saved.warnings === undefined ? [] : normaliseBuildReport(saved.warnings).warnings;
    if (warnings.length === 0) {
      navigate(paths.agents());
      return;
    }
    // Saved, but the server dropped something: stay and say what.
    setSavedWarnings(warnings);
    agent.setData(() => saved.agent);
    if (agentId === null) setCreatedId(saved.agent.id);
  };

  if (agentId !== null && !agent.data && (agent.loading || agent.error)) {
    return (
      <main className="page">
        <h1>Edit agent</h1>
        {agent.error ? (
          <ErrorMessage error={agent.error} context="Could not load the agent" />
        ) : (
          <p role="status">Loading…</p>
        )}
      </main>
    );
  }
  const loaded = agent.data ?? null;
  const kind = loaded ? agentKind(loaded) : mode.kind === 'create' ? mode.agentKind : 'agent';
  const initial = loaded ? formStateFromAgent(loaded) : emptyFormState(kind);
  const title = loaded ? `Edit ${loaded.name}` : `New ${TITLES[kind]}`;

  return (
    <main className="page agent-editor-page">
      <h1>{title}</h1>
      {savedWarnings ? (
        <section className="saved-warnings" aria-label="Saved with warnings">
          <p role="status">Saved. The build report of the saved config:</p>
          <BuildWarningList warnings={savedWarnings} />
        </section>
      ) : null}
      <AgentForm
        key={loaded?.id ?? `new-${kind}`}
        isCreate={loaded === null}
        initial={initial}
        baseConfig={loaded?.config ?? {}}
        agentId={loaded?.id}
        subagents={subagents.data ?? []}
        skills={skills.data ?? []}
        knowledgeSources={knowledgeSources.data ?? []}
        onSubmit={save}
        onCancel={() => navigate(paths.agents())}
      />
    </main>
  );
}
