import type { ArtifactDownload } from '../runtime/artifacts/artifact-service.js';
import { attachmentDisposition } from './content-disposition.js';

/** An artifact's file as a download (`/api` and the Agents API's `…/content`). */
export function artifactDownloadResponse(download: ArtifactDownload): Response {
  return new Response(download.body, {
    status: 200,
    headers: {
      'content-type': download.contentType,
      'content-length': String(download.size),
      'content-disposition': attachmentDisposition(download.fileName),
      // Artifacts are whatever an agent wrote: never rendered as a page of this origin.
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'private, no-store',
    },
  });
}
