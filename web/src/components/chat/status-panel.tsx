import { useState } from 'react';
import type { SubagentRuns } from '../../hooks/use-subagent-runs.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { ChildThreadView } from './child-thread-view.tsx';
import { SubagentCard } from './subagent-card.tsx';

/**
 * One card per subagent or delegation run of the conversation, moved live by `subagent_update` events on
 * the parent's stream and by the children's own streams (Yuxi's panel only changed when a tool returned).
 */
export function StatusPanel({ panel }: { panel: SubagentRuns }) {
  const [openRunId, setOpenRunId] = useState<string | null>(null);
  const open = panel.entries.find((entry) => entry.run_id === openRunId) ?? null;
  const active = panel.entries.filter(
    (entry) => !['completed', 'failed', 'cancelled', 'interrupted'].includes(entry.status),
  ).length;

  return (
    <aside className="status-panel" aria-label="Subagent status">
      <header>
        <h2>
          Subagents &amp; delegations <span className="count">{panel.entries.length}</span>
        </h2>
        {active > 0 ? <span className="muted small">{active} active</span> : null}
      </header>
      {panel.available === false ? (
        <p className="muted small" role="status">
          This server has no status panel endpoint yet (
          <code>GET /api/conversations/&#123;id&#125;/subagents</code>); live updates from the run stream
          still appear here.
        </p>
      ) : null}
      <ErrorMessage error={panel.error} context="Could not load subagent runs" />
      {open ? (
        <ChildThreadView entry={open} onClose={() => setOpenRunId(null)} />
      ) : panel.entries.length === 0 ? (
        <p className="empty">No subagent or delegation runs in this conversation yet.</p>
      ) : (
        <ul className="subagent-cards" aria-label="Subagent runs">
          {panel.entries.map((entry) => (
            <li key={entry.run_id}>
              <SubagentCard
                entry={entry}
                onOpen={() => setOpenRunId(entry.run_id)}
                onCancel={() => panel.cancel(entry.run_id)}
              />
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
