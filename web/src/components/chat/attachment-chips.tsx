import { formatBytes } from '../../lib/save-blob.ts';

/** A file for the next message: uploaded already (with its workdir path), or to be uploaded on send. */
export interface PendingFile {
  id: string;
  name: string;
  size: number;
  path?: string;
}

export interface AttachmentChipsProps {
  attachments: readonly PendingFile[];
  onRemove: (id: string) => void;
}

/** Files for the next message; they are named in it when it is sent. */
export function AttachmentChips({ attachments, onRemove }: AttachmentChipsProps) {
  if (attachments.length === 0) return null;
  return (
    <ul className="attachment-chips" aria-label="Pending attachments">
      {attachments.map((attachment) => (
        <li key={attachment.id} className="chip" title={attachment.path}>
          <span>
            {attachment.name} <span className="muted small">{formatBytes(attachment.size)}</span>
          </span>
          <button
            type="button"
            aria-label={`Remove ${attachment.name}`}
            onClick={() => onRemove(attachment.id)}
          >
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
