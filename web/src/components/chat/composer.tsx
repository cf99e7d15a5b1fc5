import { useRef, useState, type DragEvent, type FormEvent, type KeyboardEvent } from 'react';
import type { AttachmentView, RunStatus } from '../../api/types.ts';
import { newRequestId } from '../../lib/request-id.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { AttachmentChips } from './attachment-chips.tsx';

export interface ComposerProps {
  disabled: boolean;
  disabledReason: string | null;
  /** A run of this thread is active: one at a time, so sending waits and Cancel is offered. */
  running: boolean;
  runStatus: RunStatus | null;
  cancelling: boolean;
  /** `attachments`: ids of files uploaded with `onAttach`, named in the message. */
  onSend: (content: string, requestId: string, attachments: string[]) => Promise<void>;
  onCancel: () => void;
  /** Uploads files to the conversation (attach button, or files dropped on the composer). */
  onAttach: (files: File[]) => Promise<AttachmentView[]>;
}

/**
 * The message box. Each message gets a client `request_id`; a retry after a failed send reuses it, so a
 * request that did reach the server is not run twice. Files attached (button or drag and drop) are uploaded
 * at once and shown as chips until the message that names them is sent.
 */
export function Composer({
  disabled,
  disabledReason,
  running,
  runStatus,
  cancelling,
  onSend,
  onCancel,
  onAttach,
}: ComposerProps) {
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const [attachments, setAttachments] = useState<AttachmentView[]>([]);
  const [uploading, setUploading] = useState(false);
  const [uploadError, setUploadError] = useState<unknown>(undefined);
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const pending = useRef<{ key: string; requestId: string } | null>(null);

  const attach = async (files: File[]) => {
    if (files.length === 0 || disabled) return;
    setUploading(true);
    setUploadError(undefined);
    try {
      const uploaded = await onAttach(files);
      setAttachments((current) => [...current, ...uploaded]);
    } catch (thrown) {
      setUploadError(thrown);
    } finally {
      setUploading(false);
      if (fileInput.current) fileInput.current.value = '';
    }
  };

  const onDragOver = (event: DragEvent<HTMLFormElement>) => {
    if (disabled || !event.dataTransfer.types.includes('Files')) return;
    event.preventDefault();
    setDragging(true);
  };

  const onDrop = (event: DragEvent<HTMLFormElement>) => {
    if (disabled) return;
    event.preventDefault();
    setDragging(false);
    void attach([...event.dataTransfer.files]);
  };

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    const content = draft.trim();
    if (content === '' || running || busy || disabled || uploading) return;
    const ids = attachments.map((attachment) => attachment.id);
    const key = JSON.stringify([content, ids]);
    if (pending.current?.key !== key) pending.current = { key, requestId: newRequestId() };
    setBusy(true);
    setError(undefined);
    try {
      await onSend(content, pending.current.requestId, ids);
      pending.current = null;
      setDraft('');
      setAttachments([]);
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
    <form
      className={dragging ? 'composer dragging' : 'composer'}
      onSubmit={(event) => void submit(event)}
      onDragOver={onDragOver}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      aria-label="Send a message"
    >
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
      <AttachmentChips
        attachments={attachments}
        onRemove={(id) => setAttachments((current) => current.filter((attachment) => attachment.id !== id))}
      />
      <input
        ref={fileInput}
        type="file"
        multiple
        className="visually-hidden"
        aria-label="Files to attach"
        tabIndex={-1}
        onChange={(event) => void attach([...(event.target.files ?? [])])}
      />
      <div className="composer-actions">
        <button
          type="button"
          className="attach-button"
          disabled={disabled || uploading}
          onClick={() => fileInput.current?.click()}
        >
          {uploading ? 'Uploading…' : 'Attach files'}
        </button>
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
          disabled={disabled || busy || running || uploading || draft.trim() === ''}
        >
          Send
        </button>
      </div>
      <ErrorMessage error={uploadError} context="Files not attached" />
      <ErrorMessage error={error} context="Message not sent" />
    </form>
  );
}
