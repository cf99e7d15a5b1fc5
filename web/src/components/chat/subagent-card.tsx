import { useId, useState } from 'react';
import { isTerminalStatus } from '../../api/types.ts';
import { useNow } from '../../hooks/use-now.ts';
import { formatDuration } from '../../lib/format.ts';
import { paths } from '../../lib/routes.ts';
import { clockEnd, isWaitingToResume, usageLine, workerLostOf } from '../../lib/run-phase.ts';
import type { PanelEntry } from '../../lib/subagent-panel.ts';
import { oneLine, truncateEndAtWord } from '../../lib/text.ts';
import { AppLink } from '../common/app-link.tsx';
import { ErrorMessage } from '../common/error-message.tsx';
import { StatusBadge } from '../common/status-badge.tsx';
import { BudgetBars } from '../common/budget-bars.tsx';
import { VerdictBadge } from '../common/verdict-badge.tsx';

export interface SubagentCardProps {
  entry: PanelEntry;
  /** Unique among the cards: "Researcher", or "Researcher #2" when it ran more than once. */
  label?: string;
  onOpen: () => void;
  onCancel: () => Promise<void>;
}

/** The outcome of a finished child, in one line; a cancelled one is a neutral fact, not an error. */
function outcomeLine(entry: PanelEntry): { text: string; tone: 'ok' | 'error' | 'neutral' } | null {
  const error = entry.result?.error;
  if (entry.status === 'cancelled') {
    return { text: error?.message ? `Cancelled: ${error.message}` : 'Cancelled', tone: 'neutral' };
  }
  if (error?.refusal?.code === 'budget_exhausted') {
    return { text: `Budget exhausted: ${error.refusal.reason}`, tone: 'error' };
  }
  if (error) return { text: `${error.type ? `${error.type}: ` : ''}${error.message}`, tone: 'error' };
  if (entry.result?.output) return { text: entry.result.output, tone: 'ok' };
  return null;
}

export function SubagentCard({ entry, label, onOpen, onCancel }: SubagentCardProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const [expandedChoice, setExpandedChoice] = useState<boolean | null>(null);
  const bodyId = useId();
  const name = label ?? entry.name ?? entry.slug ?? (entry.kind === 'delegation' ? 'Expert' : 'Subagent');
  const terminal = isTerminalStatus(entry.status);
  const resuming = isWaitingToResume(entry);
  const lost = workerLostOf(entry);
  const canCancel = !terminal && entry.status !== 'cancel_requested';
  // Finished cards start folded to one line; the user's choice wins from then on.
  const expanded = expandedChoice ?? !terminal;
  const now = useNow(!terminal && !resuming && lost === null);
  const outcome = terminal ? outcomeLine(entry) : null;
  const usage = usageLine(entry.usage);

  const cancel = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await onCancel();
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  return (
    <article
      className={`subagent-card status-${entry.status}${expanded ? '' : ' collapsed'}`}
      aria-label={`${name} run`}
      data-run-id={entry.run_id}
      data-status={entry.status}
      data-phase={lost ? 'worker-lost' : resuming ? 'resuming' : undefined}
    >
      <header>
        <button
          type="button"
          className="card-toggle"
          aria-expanded={expanded}
          aria-controls={bodyId}
          aria-label={`${expanded ? 'Fold' : 'Unfold'} ${name} details`}
          onClick={() => setExpandedChoice(!expanded)}
        >
          <span aria-hidden="true">{expanded ? '▾' : '▸'}</span>
        </button>
        <button type="button" className="card-title" onClick={onOpen} aria-label={`Open ${name} thread`}>
          {name}
        </button>
        {entry.slug && entry.slug !== (entry.name ?? entry.slug) ? (
          <code className="slug">{entry.slug}</code>
        ) : null}
        <span className="pill">{entry.kind}</span>
        <StatusBadge status={entry.status} resuming={resuming} workerLost={lost} />
      </header>
      <p className="card-facts">
        <span className="card-time">
          {formatDuration(entry.started_at ?? entry.created_at, clockEnd(entry), now)}
          {resuming || lost ? ' (paused)' : ''}
        </span>
        {' · '}
        <span className="card-usage">
          {usage ?? (terminal ? 'no usage reported' : 'no tokens yet')}
          {usage && !terminal ? ' so far' : ''}
        </span>
      </p>
      {entry.verdict ? <VerdictBadge verdict={entry.verdict} compact={!expanded} /> : null}
      {!expanded && outcome ? (
        <p className={`card-outcome tone-${outcome.tone}`}>{truncateEndAtWord(oneLine(outcome.text), 120)}</p>
      ) : null}
      <div id={bodyId} hidden={!expanded}>
        {entry.description ? <p className="task">{truncateEndAtWord(entry.description, 200)}</p> : null}
        <dl className="meta">
          <dt>Thread</dt>
          <dd>
            <code>{entry.child_thread_id ?? '—'}</code>
          </dd>
        </dl>
        <BudgetBars budget={entry.budget} label={name} />
        {!terminal && entry.latest ? (
          <p className="progress-line" role="note" aria-label="Latest progress">
            {entry.latest}
          </p>
        ) : null}
        {outcome ? (
          <p className={`result result-${outcome.tone}`}>
            {outcome.tone === 'error' && entry.result?.error?.type ? (
              <>
                <code className="error-code">{entry.result.error.type}</code>{' '}
              </>
            ) : null}
            {truncateEndAtWord(
              outcome.tone === 'error' && entry.result?.error?.refusal?.code !== 'budget_exhausted'
                ? (entry.result?.error?.message ?? outcome.text)
                : outcome.text,
              300,
            )}
          </p>
        ) : null}
        <ErrorMessage error={error} />
        <div className="button-row">
          {canCancel ? (
            <button
              type="button"
              className="danger small"
              disabled={busy}
              onClick={() => void cancel()}
              aria-label={`Cancel ${name}`}
            >
              Cancel
            </button>
          ) : null}
          <AppLink to={paths.trace(entry.run_id)} className="small" aria-label={`Trace of ${name}`}>
            Trace
          </AppLink>
        </div>
      </div>
    </article>
  );
}
