import { useEffect, useRef } from 'react';
import { isTerminalStatus } from '../../api/types.ts';
import { useLiveThread } from '../../hooks/use-live-thread.ts';
import { entryName } from '../../lib/panel-groups.ts';
import { isWaitingToResume } from '../../lib/run-phase.ts';
import type { PanelEntry } from '../../lib/subagent-panel.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { StatusBadge } from '../common/status-badge.tsx';
import { ChatTranscript } from './chat-transcript.tsx';

/** A child's thread, read-only, streamed live from the child run's own events while it runs. */
export function ChildThreadView({
  entry,
  label,
  onClose,
}: {
  entry: PanelEntry;
  label?: string;
  onClose: () => void;
}) {
  const name = label ?? entryName(entry);
  const active = !isTerminalStatus(entry.status);
  const thread = useLiveThread(entry.child_conversation_id, entry.run_id, active);
  const back = useRef<HTMLButtonElement>(null);
  // Keyboard users land in the thread they opened, and "Back" is the first thing they reach.
  useEffect(() => back.current?.focus(), []);

  return (
    <section className="child-thread" aria-label={`${name} thread`}>
      <header>
        <button type="button" ref={back} onClick={onClose}>
          ← Back
        </button>
        <h3>{name}</h3>
        <StatusBadge status={entry.status} resuming={isWaitingToResume(entry)} />
      </header>
      <p className="muted small">
        Read-only{thread.view && !thread.view.end ? ', live' : ''}. Thread{' '}
        <code>{entry.child_thread_id ?? '—'}</code>
      </p>
      {entry.child_conversation_id === null ? (
        <p className="empty">The server did not say which conversation holds this thread.</p>
      ) : null}
      <ErrorMessage error={thread.error} context="Could not load the thread" />
      <ChatTranscript
        turns={thread.turns}
        activeRunId={thread.view && !thread.view.end ? entry.run_id : null}
        label={`${entryName(entry)} messages`}
        userLabel="Task from the parent agent"
      />
    </section>
  );
}
