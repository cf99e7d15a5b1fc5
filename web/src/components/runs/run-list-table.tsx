import { isTerminalStatus, type RunListItem } from '../../api/types.ts';
import { useNow } from '../../hooks/use-now.ts';
import { formatDuration, formatTime } from '../../lib/format.ts';
import { paths } from '../../lib/routes.ts';
import { clockEnd, formatMs, isWaitingToResume } from '../../lib/run-phase.ts';
import { AppLink } from '../common/app-link.tsx';
import { StatusBadge } from '../common/status-badge.tsx';

function agentName(run: RunListItem): string {
  return run.subagent_name ?? run.agent.name ?? run.agent.slug ?? run.agent.id;
}

function RunRow({ run, now }: { run: RunListItem; now: number }) {
  const resuming = isWaitingToResume(run);
  const duration =
    run.duration_ms !== null
      ? formatMs(run.duration_ms)
      : run.started_at === null
        ? 'not started'
        : `${formatDuration(run.started_at, clockEnd(run), now)}${resuming ? ' (paused)' : ''}`;
  return (
    <tr data-run-id={run.id} data-status={run.status}>
      <td data-label="Status">
        <StatusBadge status={run.status} resuming={resuming} />
      </td>
      <td data-label="Input" className="run-input-cell">
        <AppLink to={paths.trace(run.id)} className="run-open">
          {run.input_preview || '(empty input)'}
        </AppLink>
      </td>
      <td data-label="Agent">{agentName(run)}</td>
      <td data-label="Kind">
        <span className={`pill kind-${run.run_type}`}>{run.run_type}</span>
      </td>
      <td data-label="Created">{formatTime(run.created_at)}</td>
      <td data-label="Duration">{duration}</td>
      <td data-label="Tokens">{run.usage ? run.usage.total_tokens : '—'}</td>
      <td data-label="Children">{run.child_count}</td>
    </tr>
  );
}

/** The runs of one or more pages; each row opens the run's trace. Stacked as cards on a phone. */
export function RunListTable({ runs }: { runs: RunListItem[] }) {
  const now = useNow(runs.some((run) => !isTerminalStatus(run.status) && !isWaitingToResume(run)));
  return (
    <table className="data-table card-table run-table" aria-label="Runs">
      <thead>
        <tr>
          <th scope="col">Status</th>
          <th scope="col">Input</th>
          <th scope="col">Agent</th>
          <th scope="col">Kind</th>
          <th scope="col">Created</th>
          <th scope="col">Duration</th>
          <th scope="col">Tokens</th>
          <th scope="col">Children</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <RunRow key={run.id} run={run} now={now} />
        ))}
      </tbody>
    </table>
  );
}
