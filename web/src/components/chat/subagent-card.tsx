import { useState } from 'react';
import { isTerminalStatus } from '../../api/types.ts';
import { formatDuration } from '../../lib/format.ts';
import type { PanelEntry } from '../../lib/subagent-panel.ts';
import { truncateEnd } from '../../lib/text.ts';
import { paths } from '../../lib/routes.ts';
import { AppLink } from '../common/app-link.tsx';
import { ErrorMessage } from '../common/error-message.tsx';
import { StatusBadge } from '../common/status-badge.tsx';

export interface SubagentCardProps {
  entry: PanelEntry;
  onOpen: () => void;
  onCancel: () => Promise<void>;
}

export function SubagentCard({ entry, onOpen, onCancel }: SubagentCardProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const name = entry.name ?? entry.slug ?? (entry.kind === 'delegation' ? 'Expert' : 'Subagent');
  const terminal = isTerminalStatus(entry.status);
  const canCancel = !terminal && entry.status !== 'cancel_requested';

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
      className={`subagent-card status-${entry.status}`}
      aria-label={`${name} run`}
      data-run-id={entry.run_id}
      data-status={entry.status}
    >
      <header>
        <button type="button" className="card-title" onClick={onOpen} aria-label={`Open ${name} thread`}>
          {name}
        </button>
        {entry.slug && entry.slug !== name ? <code className="slug">{entry.slug}</code> : null}
        <span className="pill">{entry.kind}</span>
        <StatusBadge status={entry.status} />
      </header>
      {entry.description ? <p className="task">{truncateEnd(entry.description, 200)}</p> : null}
      <dl className="meta">
        <dt>Thread</dt>
        <dd>
          <code>{entry.child_thread_id ?? '—'}</code>
        </dd>
        <dt>Time</dt>
        <dd>{formatDuration(entry.started_at ?? entry.created_at, entry.finished_at)}</dd>
      </dl>
      {!terminal && entry.latest ? (
        <p className="progress-line" aria-label="Latest progress">
          {entry.latest}
        </p>
      ) : null}
      {terminal && entry.result?.error ? (
        <p className="result result-error">
          {entry.result.error.type ? <code className="error-code">{entry.result.error.type}</code> : null}{' '}
          {entry.result.error.message}
        </p>
      ) : null}
      {terminal && !entry.result?.error && entry.result?.output ? (
        <p className="result">{truncateEnd(entry.result.output, 300)}</p>
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
        <AppLink to={paths.runTree(entry.run_id)} className="small">
          Run tree
        </AppLink>
      </div>
    </article>
  );
}
