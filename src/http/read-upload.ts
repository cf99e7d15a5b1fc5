import type { Context } from 'hono';
import { TroupeError } from '../core/errors.js';
import type { UploadedFile } from '../runtime/knowledge/prepare-knowledge-upload.js';
import { readLimited } from './body.js';

function mediaTypeOf(contentType: string | undefined): string {
  return (contentType?.split(';')[0] ?? '').trim().toLowerCase();
}

function malformed(message: string): TroupeError {
  return new TroupeError('validation_failed', message, {
    details: { issues: [{ path: 'body', message, code: 'custom' }] },
  });
}

/**
 * The files of an upload request, read within `maxBytes` (413 beyond it, declared or streamed):
 * `multipart/form-data` with one or more file parts, or a raw body named by `filename` (the query
 * parameter) and typed by that name or by Content-Type.
 */
export async function readUpload(
  c: Context,
  maxBytes: number,
  filename: string | undefined,
): Promise<UploadedFile[]> {
  const contentType = c.req.header('content-type');
  const mediaType = mediaTypeOf(contentType);
  if (mediaType === 'application/x-www-form-urlencoded') {
    throw new TroupeError(
      'unsupported_media_type',
      'Upload documents as multipart/form-data or as a raw body with ?filename=NAME',
    );
  }
  const bytes = await readLimited(c.req.raw, maxBytes);
  if (mediaType !== 'multipart/form-data') {
    if (filename === undefined)
      throw malformed('A raw upload needs ?filename=NAME (or send multipart/form-data)');
    return [{ name: filename, bytes, ...(contentType === undefined ? {} : { contentType }) }];
  }
  let form: FormData;
  try {
    // The body is already bounded; the platform's parser handles boundaries and part headers.
    form = await new Response(bytes, { headers: { 'content-type': contentType ?? '' } }).formData();
  } catch (error) {
    throw malformed(
      `The multipart body cannot be parsed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const files: UploadedFile[] = [];
  for (const value of form.values()) {
    if (typeof value === 'string') continue;
    files.push({
      name: value.name,
      bytes: new Uint8Array(await value.arrayBuffer()),
      ...(value.type === '' ? {} : { contentType: value.type }),
    });
  }
  if (files.length === 0) throw malformed('The multipart body holds no file part');
  return files;
}
