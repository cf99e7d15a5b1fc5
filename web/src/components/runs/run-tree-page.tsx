import { useState, type FormEvent } from 'react';
import type { Agent } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { navigate } from '../../hooks/use-location.ts';
import { useSession } from '../../hooks/use-session.ts';
import { paths } from '../../lib/routes.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { RunTreeNodeView } from './run-tree-node-view.tsx';

/** The whole tree of a root run: subagents and delegations with status, duration and token usage. */
export function RunTreePage({ runId }: { runId: string | null }) {
  const { api } = useSession();
  const [draft, setDraft] = useState(runId ?? '');
  const tree = useAsync(
    (signal) => (runId === null ? Promise.resolve(null) : api.runTree(runId, signal)),
    [api, runId],
  );
  const agents = useAsync((signal) => api.listAgents(true, signal).catch(() => [] as Agent[]), [api]);
  const agentsById = new Map((agents.data ?? []).map((agent) => [agent.id, agent]));

  const open = (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim() !== '') navigate(paths.runTree(draft.trim()));
  };

  return (
    <main className="page run-tree-page">
      <div className="page-title">
        <h1>Run tree</h1>
        <form className="inline-form" onSubmit={open} aria-label="Open a run">
          <label htmlFor="run-tree-id">Run id</label>
          <input
            id="run-tree-id"
            value={draft}
            onChange={(event) => setDraft(event.target.value)}
            size={40}
          />
          <button type="submit">Open</button>
          {runId !== null ? (
            <button type="button" onClick={tree.reload}>
              Refresh
            </button>
          ) : null}
        </form>
      </div>
      {runId === null ? (
        <p className="muted">Open a run from a conversation (“Run tree”) or paste its id.</p>
      ) : null}
      <ErrorMessage error={tree.error} context="Could not load the run tree" />
      {tree.loading && !tree.data && runId !== null ? <p role="status">Loading…</p> : null}
      {tree.data ? (
        <ul className="run-tree" aria-label="Run tree">
          <RunTreeNodeView node={tree.data} agentsById={agentsById} highlight={runId} />
        </ul>
      ) : null}
    </main>
  );
}
