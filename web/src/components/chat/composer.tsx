import { useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import type { RunStatus } from '../../api/types.ts';
import { newRequestId } from '../../lib/request-id.ts';
import { ErrorMessage } from '../common/error-message.tsx';

export interface ComposerProps {
  disabled: boolean;
  disabledReason: string | null;
  /** A run of this thread is active: one at a time, so sending waits and Cancel is offered. */
  running: boolean;
  runStatus: RunStatus | null;
  cancelling: boolean;
  onSend: (content: string, requestId: string) => Promise<void>;
  onCancel: () => void;
}

/**
 * The message box. Each message gets a client `request_id`; a retry after a failed send reuses it, so a
 * request that did reach the server is not run twice.
 */
export function Composer({
  disabled,
  disabledReason,
  running,
  runStatus,
  cancelling,
  onSend,
  onCancel,
}: ComposerProps) {
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const pending = useRef<{ content: string; requestId: string } | null>(null);

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    const content = draft.trim();
    if (content === '' || running || busy || disabled) return;
    if (pending.current?.content !== content) pending.current = { content, requestId: newRequestId() };
    setBusy(true);
    setError(undefined);
    try {
      await onSend(content, pending.current.requestId);
      pending.current = null;
      setDraft('');
    } catch (thrown) {
      setError(thrown);
    } finally {
      setBusy(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      void submit();
    }
  };

  return (
    <form className="composer" onSubmit={(event) => void submit(event)} aria-label="Send a message">
      <label htmlFor="composer-input" className="visually-hidden">
        Message
      </label>
      <textarea
        id="composer-input"
        rows={3}
        value={draft}
        disabled={disabled}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
        placeholder={
          disabledReason ??
          (running
            ? 'The agent is working… you can type the next message.'
            : 'Message (Enter to send, Shift+Enter for a new line)')
        }
      />
      <div className="composer-actions">
        {running ? (
          <button
            type="button"
            className="danger"
            onClick={onCancel}
            disabled={cancelling || runStatus === 'cancel_requested'}
          >
            {cancelling || runStatus === 'cancel_requested' ? 'Cancelling…' : 'Cancel run'}
          </button>
        ) : null}
        <button
          type="submit"
          className="primary"
          disabled={disabled || busy || running || draft.trim() === ''}
        >
          Send
        </button>
      </div>
      <ErrorMessage error={error} context="Message not sent" />
    </form>
  );
}
