import { useEffect } from 'react';
import { isTerminalStatus } from '../../api/types.ts';
import { useAsync } from '../../hooks/use-async.ts';
import { useSession } from '../../hooks/use-session.ts';
import { buildTranscript } from '../../lib/build-transcript.ts';
import type { PanelEntry } from '../../lib/subagent-panel.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { StatusBadge } from '../common/status-badge.tsx';
import { ChatTranscript } from './chat-transcript.tsx';

const REFRESH_MS = 2_000;

/** A child's thread, read-only; refreshed while the child is still running. */
export function ChildThreadView({ entry, onClose }: { entry: PanelEntry; onClose: () => void }) {
  const { api } = useSession();
  const conversationId = entry.child_conversation_id;
  const messages = useAsync(
    (signal) => (conversationId === null ? Promise.resolve([]) : api.listMessages(conversationId, signal)),
    [api, conversationId, entry.status],
  );
  const active = !isTerminalStatus(entry.status);
  const { reload } = messages;
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [active, reload]);
  const name = entry.name ?? entry.slug ?? 'Subagent';

  return (
    <section className="child-thread" aria-label={`${name} thread`}>
      <header>
        <button type="button" onClick={onClose}>
          ← Back
        </button>
        <h3>{name}</h3>
        <StatusBadge status={entry.status} />
      </header>
      <p className="muted small">
        Read-only. Thread <code>{entry.child_thread_id ?? '—'}</code>
      </p>
      {conversationId === null ? (
        <p className="empty">The server did not say which conversation holds this thread.</p>
      ) : null}
      <ErrorMessage error={messages.error} context="Could not load the thread" />
      <ChatTranscript
        turns={buildTranscript({ messages: messages.data ?? [] })}
        label={`${name} messages`}
        userLabel="Task from the parent agent"
      />
    </section>
  );
}
