import { TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Attachment } from '../../core/records/attachment.js';

/**
 * The attachments a message names, in the order given. Each must have been uploaded to this very
 * conversation: an id of another conversation (anyone's) is `attachment_not_found`, like an unknown one.
 */
export async function resolveMessageAttachments(
  storage: Storage,
  conversationId: string,
  ids: readonly string[],
): Promise<Attachment[]> {
  if (new Set(ids).size !== ids.length) {
    throw new TroupeError('validation_failed', 'attachments lists the same id twice');
  }
  const found: Attachment[] = [];
  for (const id of ids) {
    const attachment = await storage.attachments.get(id);
    if (attachment?.conversation_id !== conversationId) {
      throw new TroupeError(
        'attachment_not_found',
        `Attachment ${id} not found in conversation ${conversationId}`,
      );
    }
    found.push(attachment);
  }
  return found;
}
