import { contentTypeFor, DEFAULT_CONTENT_TYPE } from '../../core/files/content-type-for.js';
import { sanitizeFileName } from '../../core/files/sanitize-file-name.js';
import { TroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Attachment } from '../../core/records/attachment.js';
import type { Actor } from '../../core/records/user.js';
import { getReadableConversation } from '../conversations/readable-conversation.js';
import { ownActiveConversation } from '../../core/conversations/own-active-conversation.js';
import { openUploads, writeUpload, type WrittenUpload } from './write-upload.js';

export interface UploadedFile {
  /** As the client named it; sanitised before use. */
  name: string;
  /** As the client declared it; used when it looks like a media type and the extension says nothing. */
  type: string;
  bytes: Uint8Array;
}

export interface AttachmentLimits {
  maxBytes: number;
  maxFiles: number;
}

export interface AttachmentService {
  /** The conversation's owner only; the files land in `uploads/` of its project workdir. */
  upload(actor: Actor, conversationId: string, files: readonly UploadedFile[]): Promise<Attachment[]>;
  /** Owner or admin; oldest first. */
  list(actor: Actor, conversationId: string): Promise<Attachment[]>;
}

export interface AttachmentServiceDeps {
  storage: Storage;
  limits: AttachmentLimits;
}

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

function contentTypeOf(name: string, declared: string): string {
  const byExtension = contentTypeFor(name);
  if (byExtension !== DEFAULT_CONTENT_TYPE) return byExtension;
  const clean = declared.split(';')[0]?.trim().toLowerCase() ?? '';
  return MEDIA_TYPE.test(clean) ? clean : DEFAULT_CONTENT_TYPE;
}

export function createAttachmentService(deps: AttachmentServiceDeps): AttachmentService {
  const { storage, limits } = deps;

  function checkLimits(files: readonly UploadedFile[]): void {
    if (files.length === 0)
      throw new TroupeError('validation_failed', 'Send at least one file (form field "files")');
    if (files.length > limits.maxFiles) {
      throw new TroupeError(
        'too_many_attachments',
        `At most ${limits.maxFiles} files per upload; got ${files.length}`,
        {
          details: { max_files: limits.maxFiles },
        },
      );
    }
    for (const file of files) {
      if (file.bytes.byteLength > limits.maxBytes) {
        throw new TroupeError(
          'attachment_too_large',
          `${sanitizeFileName(file.name)} is ${file.bytes.byteLength} bytes, over the limit of ${limits.maxBytes} bytes per file`,
          { details: { max_bytes: limits.maxBytes } },
        );
      }
    }
  }

  return {
    async upload(actor, conversationId, files) {
      // Only the owner adds to a conversation (as with messages).
      const conversation = ownActiveConversation(
        actor,
        conversationId,
        await storage.conversations.get(conversationId),
        'files',
      );
      checkLimits(files);
      const project = await storage.projects.get(conversation.project_id);
      if (!project) throw new TroupeError('project_not_found', 'The conversation has no project workdir');
      const uploads = await openUploads(project.workdir);
      const written: WrittenUpload[] = [];
      try {
        const rows: { upload: WrittenUpload; size: number; content_type: string }[] = [];
        for (const file of files) {
          const upload = await writeUpload(uploads, sanitizeFileName(file.name), file.bytes);
          written.push(upload);
          rows.push({
            upload,
            size: file.bytes.byteLength,
            content_type: contentTypeOf(upload.name, file.type),
          });
        }
        return await storage.transaction(async (tx) => {
          const created: Attachment[] = [];
          for (const row of rows) {
            created.push(
              await tx.attachments.create({
                conversation_id: conversation.id,
                user_id: actor.id,
                name: row.upload.name,
                path: row.upload.path,
                size: row.size,
                content_type: row.content_type,
              }),
            );
          }
          return created;
        });
      } catch (error) {
        // A failed upload leaves nothing behind: neither rows (one transaction) nor the files written so far.
        await Promise.all(written.map((upload) => uploads.remove(upload.name).catch(() => undefined)));
        throw error;
      } finally {
        await uploads.close();
      }
    },

    async list(actor, conversationId) {
      const conversation = await getReadableConversation(storage, actor, conversationId);
      return storage.attachments.listForConversation(conversation.id);
    },
  };
}
