import { useId, useMemo, useState } from 'react';
import type { Run } from '../../api/types.ts';
import type { SubagentRuns } from '../../hooks/use-subagent-runs.ts';
import { entryLabels, groupByTurn, panelTotals, type PanelGroup } from '../../lib/panel-groups.ts';
import { truncateEndAtWord } from '../../lib/text.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { ChildThreadView } from './child-thread-view.tsx';
import { SubagentCard } from './subagent-card.tsx';

export interface StatusPanelProps {
  panel: SubagentRuns;
  /** The conversation's runs: they number the turns the children are grouped by. */
  runs?: readonly Run[];
  /** The element id the side panel's "Subagents" toggle controls. */
  id?: string;
  /** Below the three-column width the panel is a sheet: open or not, and how to close it. */
  sheetOpen?: boolean;
  onClose?: () => void;
}

function TurnGroup({
  group,
  labels,
  panel,
  onOpen,
}: {
  group: PanelGroup;
  labels: ReadonlyMap<string, string>;
  panel: SubagentRuns;
  onOpen: (runId: string) => void;
}) {
  const [choice, setChoice] = useState<boolean | null>(null);
  const bodyId = useId();
  // A finished turn is folded until the user opens it; an active one is open.
  const open = choice ?? group.active;
  const title = group.turn !== null ? `Turn ${group.turn}` : 'Earlier turn';
  const active = group.entries.filter(
    (entry) => !['completed', 'failed', 'cancelled', 'interrupted'].includes(entry.status),
  ).length;
  return (
    <li
      className={`turn-group${open ? '' : ' folded'}`}
      data-turn={group.turn ?? undefined}
      data-active={group.active}
    >
      <h3 className="turn-group-title">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={bodyId}
          onClick={() => setChoice(!open)}
          className="turn-group-toggle"
        >
          <span aria-hidden="true">{open ? '▾' : '▸'}</span> {title}
          <span className="muted small">
            {' '}
            · {group.entries.length} run{group.entries.length === 1 ? '' : 's'}
            {active > 0 ? `, ${active} active` : ', finished'}
          </span>
        </button>
      </h3>
      {group.input ? (
        <p className="turn-group-input muted small">{truncateEndAtWord(group.input, 90)}</p>
      ) : null}
      <ul id={bodyId} className="subagent-cards" hidden={!open} aria-label={`Runs of ${title.toLowerCase()}`}>
        {group.entries.map((entry) => (
          <li key={entry.run_id}>
            <SubagentCard
              entry={entry}
              label={labels.get(entry.run_id)}
              onOpen={() => onOpen(entry.run_id)}
              onCancel={() => panel.cancel(entry.run_id)}
            />
          </li>
        ))}
      </ul>
    </li>
  );
}

/** Whether the conversation has a status panel at all: child runs, or something to say about them. */
export function hasStatusPanel(panel: SubagentRuns): boolean {
  return panel.entries.length > 0 || panel.available === false || Boolean(panel.error);
}

/**
 * The subagent and delegation runs of the conversation, grouped by the turn that started them (newest turn
 * first, finished turns folded), with totals. Cards move live with `subagent_update` events and the
 * children's own streams. Without any child run there is no panel at all (no empty column); below the
 * three-column width the panel is a sheet opened from the chat's "Subagents (n)" toggle (`SidePanels`).
 */
export function StatusPanel({ panel, runs, id, sheetOpen = false, onClose }: StatusPanelProps) {
  const [openRunId, setOpenRunId] = useState<string | null>(null);
  const open = panel.entries.find((entry) => entry.run_id === openRunId) ?? null;
  const labels = useMemo(() => entryLabels(panel.entries), [panel.entries]);
  const groups = useMemo(() => groupByTurn(panel.entries, runs), [panel.entries, runs]);
  const totals = panelTotals(panel.entries);

  if (!hasStatusPanel(panel)) return null;

  return (
    <aside
      id={id}
      className={`status-panel side-sheet${sheetOpen ? ' sheet-open' : ''}`}
      aria-label="Subagent status"
    >
      <div className="status-panel-body">
        <header>
          <h2>
            Subagents &amp; delegations <span className="count">{panel.entries.length}</span>
          </h2>
          <button type="button" className="sheet-close small" onClick={onClose}>
            Close
          </button>
        </header>
        {panel.entries.length > 0 ? (
          <p className="panel-totals">
            <strong>Total</strong> {totals.runs} run{totals.runs === 1 ? '' : 's'}
            {totals.active > 0 ? ` (${totals.active} active)` : ''} · {totals.total_tokens} tokens ·{' '}
            {totals.model_calls} model call{totals.model_calls === 1 ? '' : 's'}
          </p>
        ) : null}
        {panel.available === false ? (
          <p className="muted small" role="status">
            This server has no status panel endpoint yet (
            <code>GET /api/conversations/&#123;id&#125;/subagents</code>); live updates from the run stream
            still appear here.
          </p>
        ) : null}
        <ErrorMessage error={panel.error} context="Could not load subagent runs" />
        {open ? (
          <ChildThreadView entry={open} label={labels.get(open.run_id)} onClose={() => setOpenRunId(null)} />
        ) : panel.entries.length === 0 ? (
          <p className="empty">No subagent or delegation runs in this conversation yet.</p>
        ) : (
          <ul className="turn-groups" aria-label="Subagent runs">
            {groups.map((group) => (
              <TurnGroup key={group.key} group={group} labels={labels} panel={panel} onOpen={setOpenRunId} />
            ))}
          </ul>
        )}
      </div>
    </aside>
  );
}
