import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ErrorMessage } from '../common/error-message.tsx';

/**
 * A user message opened for editing: Send sends the edited text as a new message of the conversation
 * (the earlier one and its answer stay, as they happened); Cancel or Escape closes it unchanged.
 */
export function EditMessageForm({
  text,
  onSend,
  onClose,
}: {
  text: string;
  onSend: (text: string) => Promise<void>;
  onClose: () => void;
}) {
  const [draft, setDraft] = useState(text);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const input = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (draft.trim() === '' || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await onSend(draft.trim());
      onClose();
    } catch (thrown) {
      setError(thrown);
      setBusy(false);
    }
  };

  return (
    <form
      className="edit-message"
      aria-label="Edit your message"
      onSubmit={(event) => void submit(event)}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onClose();
      }}
    >
      <label className="visually-hidden" htmlFor="edit-message-input">
        Edited message
      </label>
      <textarea
        id="edit-message-input"
        ref={input}
        rows={3}
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
      />
      <div className="button-row">
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="submit" className="primary" disabled={busy || draft.trim() === ''}>
          Send edited message
        </button>
      </div>
      <ErrorMessage error={error} context="Message not sent" />
    </form>
  );
}
