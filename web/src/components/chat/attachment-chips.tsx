import type { AttachmentView } from '../../api/types.ts';
import { formatBytes } from '../../lib/save-blob.ts';

export interface AttachmentChipsProps {
  attachments: readonly AttachmentView[];
  onRemove: (id: string) => void;
}

/** Files uploaded for the next message; they are named in it when it is sent. */
export function AttachmentChips({ attachments, onRemove }: AttachmentChipsProps) {
  if (attachments.length === 0) return null;
  return (
    <ul className="attachment-chips" aria-label="Pending attachments">
      {attachments.map((attachment) => (
        <li key={attachment.id} className="chip" title={attachment.path}>
          <span>
            {attachment.name} <span className="muted small">{formatBytes(attachment.size)}</span>
          </span>
          <button type="button" aria-label={`Remove ${attachment.name}`} onClick={() => onRemove(attachment.id)}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
