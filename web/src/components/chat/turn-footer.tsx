import { isTerminalStatus, type Run, type RunStatus } from '../../api/types.ts';
import { useNow } from '../../hooks/use-now.ts';
import { formatDuration } from '../../lib/format.ts';
import { paths } from '../../lib/routes.ts';
import { clockEnd, isWaitingToResume, usageLine, workerLostOf } from '../../lib/run-phase.ts';
import { AppLink } from '../common/app-link.tsx';
import { StatusBadge } from '../common/status-badge.tsx';

/**
 * Under an assistant turn: how its run went — status, time, tokens (the server's live figure, docs/usage.md,
 * "so far" while it runs) — and a link to its trace. A run whose worker is lost says so, its clock stopped.
 */
export function TurnFooter({ run, liveStatus }: { run: Run; liveStatus?: RunStatus }) {
  const status = liveStatus ?? run.status;
  const resuming = liveStatus === undefined && isWaitingToResume(run);
  const lost = workerLostOf({ ...run, status: isTerminalStatus(status) ? status : run.status });
  const ticking = !isTerminalStatus(status) && !resuming && lost === null;
  const now = useNow(ticking);
  const end = ticking
    ? null
    : (clockEnd({ ...run, status }) ?? (isTerminalStatus(status) ? run.updated_at : null));
  const usage = usageLine(run.usage);
  return (
    <div className="turn-footer" role="group" aria-label="Run of this answer">
      <StatusBadge status={status} resuming={resuming} workerLost={lost} />
      <span data-clock={ticking ? 'ticking' : 'stopped'}>
        {run.started_at ? formatDuration(run.started_at, end, now) : 'not started'}
      </span>
      <span data-usage="run">
        {usage === null ? 'no tokens yet' : `${usage}${isTerminalStatus(status) ? '' : ' so far'}`}
      </span>
      <AppLink to={paths.trace(run.id)} aria-label={`Trace of run ${run.id.slice(0, 8)}`}>
        Trace
      </AppLink>
    </div>
  );
}
