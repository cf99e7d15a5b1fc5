import {
  useEffect,
  useRef,
  useState,
  type DragEvent,
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
  type Ref,
} from 'react';
import type { AttachmentView, RunStatus } from '../../api/types.ts';
import { useServerLimits } from '../../hooks/use-server-limits.ts';
import { attachmentProblem } from '../../lib/attachment-check.ts';
import { newRequestId } from '../../lib/request-id.ts';
import { ErrorMessage } from '../common/error-message.tsx';
import { AttachmentChips, type PendingFile } from './attachment-chips.tsx';

export interface ComposerProps {
  disabled: boolean;
  disabledReason: string | null;
  /** A run of this thread is active: one at a time, so sending waits and Cancel is offered. */
  running: boolean;
  runStatus: RunStatus | null;
  /** The active run waits for the user: an answer to its question, or a decision on a tool call. */
  waitingFor?: 'answer' | 'approval' | null;
  cancelling: boolean;
  /**
   * `attachments`: ids of files uploaded with `onAttach`; `files`: the files chosen without `onAttach`, to
   * upload once there is a conversation for them.
   */
  onSend: (content: string, requestId: string, attachments: string[], files: File[]) => Promise<void>;
  onCancel?: () => void;
  /** Uploads files to the conversation at once (attach button, or files dropped on the composer). */
  onAttach?: (files: File[]) => Promise<AttachmentView[]>;
  autoFocus?: boolean;
  inputRef?: Ref<HTMLTextAreaElement>;
  /** Controls shown before the buttons (the new chat's agent picker). */
  children?: ReactNode;
}

const PLACEHOLDERS = {
  answer: 'The agent is waiting for your answer above.',
  approval: 'The agent is waiting for your decision above.',
  running: 'The agent is working… you can type the next message.',
  idle: 'Message (Enter to send, Shift+Enter for a new line)',
};

interface Chip extends PendingFile {
  file?: File;
}

let staged = 0;

/**
 * The message box. Each message gets a client `request_id`; a retry after a failed send reuses it, so a
 * request that did reach the server is not run twice. Files attached (button or drag and drop) are checked
 * against the server's limits first, then uploaded at once (or kept for `onSend` when there is no
 * conversation yet), and shown as chips until the message that names them is sent.
 */
export function Composer({
  disabled,
  disabledReason,
  running,
  runStatus,
  waitingFor = null,
  cancelling,
  onSend,
  onCancel,
  onAttach,
  autoFocus = false,
  inputRef,
  children,
}: ComposerProps) {
  const [draft, setDraft] = useState('');
  const [error, setError] = useState<unknown>(undefined);
  const [busy, setBusy] = useState(false);
  const [chips, setChips] = useState<Chip[]>([]);
  const [uploading, setUploading] = useState(false);
  const [uploadError, setUploadError] = useState<unknown>(undefined);
  const [tooMuch, setTooMuch] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const limits = useServerLimits();
  const fileInput = useRef<HTMLInputElement>(null);
  const textarea = useRef<HTMLTextAreaElement | null>(null);
  const pending = useRef<{ key: string; requestId: string } | null>(null);

  // A disabled box cannot take the focus: it takes it once enabled (the new chat's agents have loaded),
  // unless the user has put it somewhere meanwhile.
  useEffect(() => {
    const elsewhere = document.activeElement !== null && document.activeElement !== document.body;
    if (autoFocus && !disabled && !elsewhere) textarea.current?.focus();
  }, [autoFocus, disabled]);

  const attach = async (files: File[]) => {
    if (files.length === 0 || disabled) return;
    setUploadError(undefined);
    // Checked before anything is sent: a file over the limit would only be refused after its upload.
    const problem = attachmentProblem(files, chips.length, limits);
    setTooMuch(problem);
    if (problem !== null) {
      if (fileInput.current) fileInput.current.value = '';
      return;
    }
    if (!onAttach) {
      setChips((current) => [
        ...current,
        ...files.map((file) => ({ id: `staged-${(staged += 1)}`, name: file.name, size: file.size, file })),
      ]);
      if (fileInput.current) fileInput.current.value = '';
      return;
    }
    setUploading(true);
    try {
      const uploaded = await onAttach(files);
      setChips((current) => [...current, ...uploaded]);
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
    const ids = chips.filter((chip) => !chip.file).map((chip) => chip.id);
    const files = chips.flatMap((chip) => (chip.file ? [chip.file] : []));
    const key = JSON.stringify([content, chips.map((chip) => chip.id)]);
    if (pending.current?.key !== key) pending.current = { key, requestId: newRequestId() };
    setBusy(true);
    setError(undefined);
    try {
      await onSend(content, pending.current.requestId, ids, files);
      pending.current = null;
      setDraft('');
      setChips([]);
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

  const placeholder =
    disabledReason ??
    (waitingFor ? PLACEHOLDERS[waitingFor] : running ? PLACEHOLDERS.running : PLACEHOLDERS.idle);
  const stopping = cancelling || runStatus === 'cancel_requested';

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
        ref={(element) => {
          textarea.current = element;
          if (typeof inputRef === 'function') inputRef(element);
          else if (inputRef) inputRef.current = element;
        }}
        rows={3}
        value={draft}
        disabled={disabled}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
        placeholder={placeholder}
      />
      <AttachmentChips
        attachments={chips}
        onRemove={(id) => setChips((current) => current.filter((chip) => chip.id !== id))}
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
        {children}
        {running && onCancel ? (
          <button type="button" className="danger" onClick={onCancel} disabled={stopping}>
            {stopping ? 'Cancelling…' : 'Cancel run'}
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
      {tooMuch !== null ? (
        <p className="error-message" role="alert">
          <span className="error-context">Files not attached: </span>
          {tooMuch}
        </p>
      ) : null}
      <ErrorMessage error={uploadError} context="Files not attached" />
      <ErrorMessage error={error} context="Message not sent" />
    </form>
  );
}
