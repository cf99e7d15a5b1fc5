import { useState } from 'react';
import type { Agent } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { navigate } from '../../hooks/use-location.ts';
import { useSession } from '../../hooks/use-session.ts';
import { normaliseBuildReport } from '../../lib/build-report.ts';
import { modelLabel } from '../../lib/format.ts';
import { paths } from '../../lib/routes.ts';
import { ConfirmDialog } from '../common/confirm-dialog.tsx';
import { ErrorMessage } from '../common/error-message.tsx';
import { canManage } from '../../lib/user-rights.ts';

export interface AgentCardProps {
  agent: Agent;
  onDeleted: (id: string) => void;
}

export function AgentCard({ agent, onDeleted }: AgentCardProps) {
  const { api, user } = useSession();
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const mayManage = canManage(user, agent.owner_id);
  const tools = agent.config.tools;
  const specCount = agent.config.subagent_specs?.length ?? 0;
  // Inline specs that do not survive the builder never run: count the ones that do (from the build report).
  const report = useAsync(
    (signal) =>
      specCount === 0 ? Promise.resolve(null) : api.agentBuildReport(agent.id, signal).catch(() => null),
    [api, agent.id, specCount],
  );
  const builtReport = report.data ? normaliseBuildReport(report.data) : null;
  const surviving = builtReport?.subagents?.filter((subagent) => subagent.source === 'inline').length ?? null;
  const inlineText =
    specCount === 0
      ? ''
      : surviving === null
        ? ` + ${specCount} inline spec${specCount === 1 ? '' : 's'}`
        : ` + ${surviving} inline${surviving < specCount ? ` (${specCount - surviving} of ${specCount} dropped)` : ''}`;

  const remove = async () => {
    setBusy(true);
    try {
      await api.deleteAgent(agent.id);
      setConfirming(false);
      onDeleted(agent.id);
    } catch (thrown) {
      setConfirming(false);
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <article className="agent-card" aria-label={agent.name}>
      <header>
        <h3>{agent.name}</h3>
        <code className="slug">{agent.slug}</code>
        {agent.is_default ? <span className="pill">default</span> : null}
        <span className="pill">{agent.visibility}</span>
        {agent.backend === 'chat' && agent.status === 'published' && !agent.delegatable ? (
          <span className="pill">not delegatable</span>
        ) : null}
      </header>
      <p>{agent.description || <span className="muted">No description.</span>}</p>
      <dl className="meta">
        <dt>Model</dt>
        <dd>{modelLabel(agent.config.model)}</dd>
        <dt>Tools</dt>
        <dd>{tools === undefined ? 'all built-in tools' : tools.length === 0 ? 'none' : tools.join(', ')}</dd>
        {agent.backend === 'chat' ? (
          <>
            <dt>Subagents</dt>
            <dd>
              {agent.config.subagents && agent.config.subagents.length > 0
                ? agent.config.subagents.join(', ')
                : 'all visible'}
              <span className="inline-specs">{inlineText}</span>
            </dd>
          </>
        ) : null}
      </dl>
      <ErrorMessage error={error} />
      <div className="button-row">
        {agent.backend === 'chat' ? (
          <button
            type="button"
            onClick={() => navigate(paths.newChat(agent.id))}
            aria-label={`Chat with ${agent.name}`}
          >
            Chat
          </button>
        ) : null}
        {mayManage ? (
          <>
            <button
              type="button"
              onClick={() => navigate(paths.editAgent(agent.id))}
              aria-label={`Edit ${agent.name}`}
            >
              Edit
            </button>
            <button
              type="button"
              className="danger"
              disabled={agent.is_default}
              title={agent.is_default ? 'The default agent cannot be deleted' : undefined}
              onClick={() => setConfirming(true)}
              aria-label={`Delete ${agent.name}`}
            >
              Delete
            </button>
          </>
        ) : null}
      </div>
      {confirming ? (
        <ConfirmDialog
          title={`Delete ${agent.name}?`}
          message={`"${agent.slug}" will no longer be usable; its past runs and conversations stay for history.`}
          confirmLabel="Delete"
          busy={busy}
          onConfirm={() => void remove()}
          onCancel={() => setConfirming(false)}
        />
      ) : null}
    </article>
  );
}
