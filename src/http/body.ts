import type { Context } from 'hono';
import type { z } from 'zod';
import { TroupeError } from '../core/errors.js';
import { toValidationError } from '../core/to-validation-error.js';
import { readRequestBytes } from './read-request-bytes.js';

export { readLimited } from './read-request-bytes.js';

function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const mediaType = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

/**
 * The body of a JSON route, checked in the order a client can fix things: media type (415), size (413),
 * syntax (400 `invalid_json`), then shape (400 `validation_failed`, unknown fields included because body
 * schemas are strict).
 */
export async function readJsonBody<TSchema extends z.ZodType>(
  c: Context,
  schema: TSchema,
  maxBytes: number,
): Promise<z.output<TSchema>> {
  if (!isJsonMediaType(c.req.header('content-type'))) {
    throw new TroupeError(
      'unsupported_media_type',
      'Send the request body as JSON (Content-Type: application/json)',
    );
  }
  const bytes = await readRequestBytes(c, maxBytes);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new TroupeError('invalid_json', 'Request body is not valid UTF-8');
  }
  if (text.trim() === '') throw new TroupeError('invalid_json', 'Request body is empty; send a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'unparseable';
    throw new TroupeError('invalid_json', `Request body is not valid JSON: ${reason}`);
  }
  return parseInput(schema, value, 'body');
}

/** Path parameters, query strings and bodies all fail the same way: 400 with every issue listed. */
export function parseInput<TSchema extends z.ZodType>(
  schema: TSchema,
  value: unknown,
  where: string,
): z.output<TSchema> {
  const result = schema.safeParse(value);
  if (!result.success) throw toValidationError(result.error, where);
  return result.data;
}
