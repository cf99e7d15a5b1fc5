import type { Context } from 'hono';
import { TroupeError } from '../core/errors.js';
import type { UploadedFile } from '../runtime/attachments/attachment-service.js';
import { readLimited } from './body.js';

export interface MultipartFilesOptions {
  /** Form fields that may carry files; any other field is refused (bodies are strict, as JSON ones are). */
  fields: readonly string[];
  maxBodyBytes: number;
}

function isMultipart(contentType: string | undefined): boolean {
  const mediaType = (contentType?.split(';')[0] ?? '').trim().toLowerCase();
  return mediaType === 'multipart/form-data' && /;\s*boundary=/i.test(contentType ?? '');
}

/**
 * The files of a `multipart/form-data` body, checked in the order a client can fix things: media type
 * (415), size (413, counted while reading), syntax (400 `invalid_multipart`), then fields (400).
 */
export async function readMultipartFiles(
  c: Context,
  options: MultipartFilesOptions,
): Promise<UploadedFile[]> {
  const contentType = c.req.header('content-type');
  if (!isMultipart(contentType)) {
    throw new TroupeError(
      'unsupported_media_type',
      'Send the files as multipart/form-data (with a boundary), one or more parts named "files"',
    );
  }
  const bytes = await readLimited(c.req.raw, options.maxBodyBytes);
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { 'content-type': contentType ?? '' } }).formData();
  } catch (error) {
    throw new TroupeError('invalid_multipart', 'Request body is not valid multipart/form-data', {
      cause: error,
    });
  }
  const files: UploadedFile[] = [];
  for (const [field, value] of form.entries()) {
    if (!options.fields.includes(field)) {
      throw new TroupeError(
        'validation_failed',
        `Unknown form field "${field.slice(0, 100)}"; send files as "${options.fields[0] ?? 'files'}"`,
      );
    }
    if (typeof value === 'string') {
      throw new TroupeError('validation_failed', `Form field "${field}" must be a file, not text`);
    }
    files.push({ name: value.name, type: value.type, bytes: new Uint8Array(await value.arrayBuffer()) });
  }
  return files;
}
