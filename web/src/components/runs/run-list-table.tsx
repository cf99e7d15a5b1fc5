import { isTerminalStatus, type RunListItem } from '../../api/types.ts';
import { useNow } from '../../hooks/use-now.ts';
import { formatDuration, formatTime } from '../../lib/format.ts';
import { paths } from '../../lib/routes.ts';
import { clockEnd, formatMs, isWaitingToResume } from '../../lib/run-phase.ts';
import { AppLink } from '../common/app-link.tsx';
import { DataTable } from '../common/data-table.tsx';
import { StatusBadge } from '../common/status-badge.tsx';

function agentName(run: RunListItem): string {
  return run.subagent_name ?? run.agent.name ?? run.agent.slug ?? run.agent.id;
}

function duration(run: RunListItem, now: number): string {
  if (run.duration_ms !== null) return formatMs(run.duration_ms);
  if (run.started_at === null) return 'not started';
  return `${formatDuration(run.started_at, clockEnd(run), now)}${isWaitingToResume(run) ? ' (paused)' : ''}`;
}

/**
 * The runs of one or more pages; each row opens the run's trace, and its checkbox picks it for a comparison.
 * Stacked as cards on a phone.
 */
export function RunListTable({
  runs,
  selected,
  onToggle,
}: {
  runs: RunListItem[];
  selected: readonly string[];
  onToggle: (runId: string, on: boolean) => void;
}) {
  const now = useNow(runs.some((run) => !isTerminalStatus(run.status) && !isWaitingToResume(run)));
  return (
    <DataTable
      className="run-table"
      label="Runs"
      rows={runs}
      rowKey={(run) => run.id}
      rowProps={(run) => ({ 'data-run-id': run.id, 'data-status': run.status })}
      columns={[
        {
          header: 'Compare',
          actions: true,
          cell: (run) => (
            <input
              type="checkbox"
              aria-label={`Compare ${run.input_preview || run.id}`}
              checked={selected.includes(run.id)}
              disabled={!selected.includes(run.id) && selected.length >= 2}
              onChange={(event) => onToggle(run.id, event.target.checked)}
            />
          ),
        },
        {
          header: 'Status',
          cell: (run) => <StatusBadge status={run.status} resuming={isWaitingToResume(run)} />,
        },
        {
          header: 'Input',
          className: 'run-input-cell',
          cell: (run) => (
            <AppLink to={paths.trace(run.id)} className="run-open">
              {run.input_preview || '(empty input)'}
            </AppLink>
          ),
        },
        { header: 'Agent', cell: agentName },
        {
          header: 'Kind',
          cell: (run) => (
            <>
              <span className={`pill kind-${run.run_type}`}>{run.run_type}</span>
              {run.forked_from ? (
                <span className="pill fork-badge" title={`Forked from run ${run.forked_from.run_id}`}>
                  fork
                </span>
              ) : null}
            </>
          ),
        },
        { header: 'Created', cell: (run) => formatTime(run.created_at) },
        { header: 'Duration', cell: (run) => duration(run, now) },
        { header: 'Tokens', cell: (run) => (run.usage ? run.usage.total_tokens : '—') },
        { header: 'Children', cell: (run) => run.child_count },
      ]}
    />
  );
}
