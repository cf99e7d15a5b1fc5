import { Readable } from 'node:stream';
import { TroupeError, isTroupeError } from '../../core/errors.js';
import type { Storage } from '../../core/ports/storage.js';
import type { Artifact } from '../../core/records/artifact.js';
import type { Actor } from '../../core/records/user.js';
import { getReadableConversation } from '../conversations/readable-conversation.js';
import { openInWorkdir } from '../tools/workdir/open-in-workdir.js';

export interface ArtifactDownload {
  artifact: Artifact;
  /** The file name a browser should save it as (the last path component). */
  fileName: string;
  contentType: string;
  /** Bytes sent: the file's size when it was opened for this download. */
  size: number;
  body: ReadableStream<Uint8Array>;
}

export interface ArtifactService {
  /** Owner or admin; oldest first. */
  list(actor: Actor, conversationId: string): Promise<Artifact[]>;
  /** Opens the artifact's file as it is now, read safely from the workdir; the caller sends `body`. */
  download(actor: Actor, conversationId: string, artifactId: string): Promise<ArtifactDownload>;
}

export interface ArtifactServiceDeps {
  storage: Storage;
  maxDownloadBytes: number;
}

/** What `openInWorkdir` says when the file is gone, moved out of reach, or no longer a regular file. */
const MISSING_CODES = ['file_not_found', 'path_outside_workdir', 'tool_input_invalid'] as const;

export function createArtifactService(deps: ArtifactServiceDeps): ArtifactService {
  const { storage } = deps;

  async function artifactOf(actor: Actor, conversationId: string, artifactId: string) {
    const conversation = await getReadableConversation(storage, actor, conversationId);
    const artifact = await storage.artifacts.get(artifactId);
    if (artifact?.conversation_id !== conversation.id) {
      throw new TroupeError(
        'artifact_not_found',
        `Artifact ${artifactId} not found in conversation ${conversationId}`,
      );
    }
    const project = await storage.projects.get(conversation.project_id);
    if (!project) throw new TroupeError('project_not_found', 'The conversation has no project workdir');
    return { artifact, workdir: project.workdir };
  }

  return {
    async list(actor, conversationId) {
      const conversation = await getReadableConversation(storage, actor, conversationId);
      return storage.artifacts.listForConversation(conversation.id);
    },

    async download(actor, conversationId, artifactId) {
      const { artifact, workdir } = await artifactOf(actor, conversationId, artifactId);
      let opened;
      try {
        // The same guarded open as the file tools: no symlink swapped in, still inside the workdir.
        opened = await openInWorkdir(workdir, artifact.path, 'read');
      } catch (error) {
        if (MISSING_CODES.some((code) => isTroupeError(error, code))) {
          throw new TroupeError(
            'artifact_file_missing',
            `The file of artifact ${artifact.id} (${artifact.path}) no longer exists`,
            {
              cause: error,
            },
          );
        }
        throw error;
      }
      const { handle, stats } = opened;
      if (stats.size > deps.maxDownloadBytes) {
        await handle.close();
        throw new TroupeError(
          'artifact_too_large',
          `Artifact ${artifact.id} is ${stats.size} bytes, over the download limit of ${deps.maxDownloadBytes} bytes`,
          { details: { size: stats.size, max_bytes: deps.maxDownloadBytes } },
        );
      }
      let body: ReadableStream<Uint8Array>;
      if (stats.size === 0) {
        await handle.close();
        body = new ReadableStream({ start: (controller) => controller.close() });
      } else {
        // Bounded by the size just checked: a file that grows meanwhile cannot exceed the limit or the length sent.
        const stream = handle.createReadStream({ start: 0, end: stats.size - 1 });
        body = Readable.toWeb(stream) as ReadableStream<Uint8Array>;
      }
      return {
        artifact,
        fileName: artifact.path.split('/').at(-1) ?? 'artifact',
        contentType: artifact.content_type,
        size: stats.size,
        body,
      };
    },
  };
}
