import { z } from 'zod';
import { KNOWN_CONTENT_TYPES } from '../../core/files/content-type-for.js';
import { artifactView } from '../../core/files/artifact-view.js';
import type { AppDependencies } from '../app-dependencies.js';
import { artifactDownloadResponse } from '../artifact-download-response.js';
import { idParamsSchema } from '../id-params.js';
import { readMultipartFiles } from '../read-multipart-files.js';
import type { RouteRegistry } from '../route-registry.js';
import { RESPONSES } from '../response-schemas/route-responses.js';

const artifactParamsSchema = z.object({
  id: z.string().min(1).max(200).describe('Conversation id'),
  artifact_id: z.string().min(1).max(200).describe('Artifact id'),
});

/** Room for part headers and boundaries around the files themselves. */
const MULTIPART_OVERHEAD_BYTES = 256 * 1024;

/** Artifacts presented in a conversation and files attached to it (docs/runtime-tools.md). */
export function registerConversationFileRoutes(registry: RouteRegistry, deps: AppDependencies): void {
  const limits = deps.config.files;
  const { artifacts, attachments } = deps;

  registry.add({
    method: 'get',
    path: '/api/conversations/{id}/artifacts',

    response: RESPONSES.artifacts,
    summary: 'Files the agent presented in this conversation (present_artifacts), oldest first',
    tag: 'conversations',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ artifacts: (await artifacts.list(actor, params.id)).map(artifactView) }),
  });

  registry.add({
    method: 'get',
    path: '/api/conversations/{id}/artifacts/{artifact_id}/download',
    errors: ['artifact_too_large', 'artifact_file_missing'],
    summary: 'Download an artifact: the file as it is now in the project workdir',
    description:
      'Owner or admin. Sent as an attachment with a content type by extension; 404 `artifact_file_missing` ' +
      'when the file is gone, 413 `artifact_too_large` over the download limit.',
    tag: 'conversations',
    access: 'user',
    // The file's type by its extension (application/octet-stream when unknown).
    produces: KNOWN_CONTENT_TYPES,
    params: artifactParamsSchema,
    handler: async ({ actor, params }) => {
      const download = await artifacts.download(actor, params.id, params.artifact_id);
      return artifactDownloadResponse(download);
    },
  });

  registry.add({
    method: 'get',
    path: '/api/limits',

    response: RESPONSES.limits,
    summary: 'What this server accepts from a client: attachment sizes and counts',
    description:
      'The limits clients check before uploading (the server enforces them anyway): ' +
      '`TROUPE_ATTACHMENT_MAX_BYTES` and `TROUPE_ATTACHMENT_MAX_FILES`.',
    tag: 'conversations',
    access: 'user',
    handler: ({ c }) =>
      c.json({
        limits: {
          attachment_max_bytes: limits.attachmentMaxBytes,
          attachment_max_files: limits.attachmentMaxFiles,
        },
      }),
  });

  registry.add({
    method: 'post',
    path: '/api/conversations/{id}/attachments',
    errors: ['attachment_too_large', 'too_many_attachments', 'invalid_multipart'],

    response: RESPONSES.attachments,
    summary: 'Attach files: stored under uploads/ in the project workdir, named in the next message',
    description:
      `multipart/form-data with one or more file parts named "files"; at most ${limits.attachmentMaxFiles} ` +
      `files of ${limits.attachmentMaxBytes} bytes each. Names are sanitised (last path component, no control ` +
      'characters, no leading dots); a taken name gets a -N suffix. Pass the ids as `attachments` of ' +
      '`POST /api/conversations/{id}/messages`.',
    tag: 'conversations',
    access: 'user',
    status: 201,
    params: idParamsSchema,
    multipartFiles: { field: 'files', description: 'The files to attach' },
    handler: async ({ c, actor, params }) => {
      const files = await readMultipartFiles(c, {
        fields: ['files', 'file'],
        maxBodyBytes: limits.attachmentMaxBytes * limits.attachmentMaxFiles + MULTIPART_OVERHEAD_BYTES,
      });
      return c.json({ attachments: await attachments.upload(actor, params.id, files) }, 201);
    },
  });

  registry.add({
    method: 'get',
    path: '/api/conversations/{id}/attachments',

    response: RESPONSES.attachments,
    summary: 'Files attached to this conversation, oldest first',
    tag: 'conversations',
    access: 'user',
    params: idParamsSchema,
    handler: async ({ c, actor, params }) =>
      c.json({ attachments: await attachments.list(actor, params.id) }),
  });
}
