import type { StreamState } from '../../api/run-event-stream.ts';
import type { Agent, Conversation, Run, RunStatus, WorkerLost } from '../../api/types.ts';
import { isTerminalStatus } from '../../api/types.ts';
import { modelLabel } from '../../lib/format.ts';
import { usageLine } from '../../lib/run-phase.ts';
import { paths } from '../../lib/routes.ts';
import { AppLink } from '../common/app-link.tsx';
import { StatusBadge } from '../common/status-badge.tsx';

export interface ConversationHeaderProps {
  conversation: Conversation | null;
  agent: Agent | null;
  /** From the live run's `metadata` event (scripted models are labelled there). */
  model: string | null;
  latestRun: Run | null;
  /** The followed run's status as the stream shows it; null when no run is followed. */
  liveStatus: RunStatus | null;
  /** The followed run was handed back to the queue after it started: it waits to be resumed. */
  resuming?: boolean;
  /** The followed run's lease expired: no worker holds it. */
  workerLost?: WorkerLost | null;
  streamState: StreamState | 'idle';
  /** The followed run waits for the user: it says for what, not just "input required". */
  waitingFor?: 'answer' | 'approval' | null;
  onArchive: () => void;
  onRestore: () => void;
}

const STREAM_NOTES: Partial<Record<StreamState, string>> = {
  connecting: 'connecting to the live stream…',
  reconnecting: 'connection lost; reconnecting…',
};

export function ConversationHeader(props: ConversationHeaderProps) {
  const { conversation, agent, model, latestRun, liveStatus, streamState, onArchive, onRestore } = props;
  const { resuming = false, waitingFor = null } = props;
  const workerLost = props.workerLost ?? null;
  const status = liveStatus ?? latestRun?.status ?? null;
  const note = liveStatus !== null ? STREAM_NOTES[streamState as StreamState] : undefined;
  // The latest run's usage as the server counts it, live while it runs (docs/usage.md): the footer's figure.
  const usage = usageLine(latestRun?.usage);
  return (
    <header className="conversation-header">
      <div>
        <h1>{conversation?.title ?? 'Conversation'}</h1>
        <p className="muted small">
          {agent ? (
            <>
              with <strong>{agent.name}</strong> · {modelLabel(model ?? agent.config.model)}
            </>
          ) : null}
          {conversation ? (
            <>
              {' '}
              · thread <code>{conversation.thread_id}</code>
            </>
          ) : null}
        </p>
      </div>
      <div className="header-actions">
        {status !== null ? (
          <span className="run-status" role="group" aria-label="Run status">
            <StatusBadge
              status={status}
              resuming={resuming}
              workerLost={workerLost}
              label={
                status === 'input_required' && waitingFor
                  ? waitingFor === 'answer'
                    ? 'Waiting for your answer'
                    : 'Waiting for your decision'
                  : undefined
              }
            />
          </span>
        ) : null}
        {usage !== null ? (
          <span className="muted small" data-usage="run">
            {usage}
            {latestRun && !isTerminalStatus(latestRun.status) ? ' so far' : ''}
          </span>
        ) : null}
        {note ? (
          <span className="muted small" role="status">
            {note}
          </span>
        ) : null}
        {latestRun ? (
          <AppLink to={paths.trace(latestRun.id)} className="button-link">
            Trace
          </AppLink>
        ) : null}
        {conversation?.status === 'active' ? (
          <button type="button" onClick={onArchive}>
            Archive
          </button>
        ) : null}
        {conversation?.status === 'archived' ? (
          <button type="button" onClick={onRestore}>
            Restore
          </button>
        ) : null}
      </div>
    </header>
  );
}
