import type { Attachment } from '../records/attachment.js';
import { formatByteSize } from './format-byte-size.js';

/**
 * The user message the model sees: the text, then the attached files by workdir path and size, so the
 * model (and its subagents, which share the workdir) can open them with the file tools.
 */
export function messageWithAttachments(
  content: string,
  attachments: readonly Pick<Attachment, 'path' | 'size'>[],
): string {
  if (attachments.length === 0) return content;
  const list = attachments
    .map((attachment) => `${attachment.path} (${formatByteSize(attachment.size)})`)
    .join(', ');
  return `${content}\n\nAttached files: ${list}`;
}
