import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../app-env.js';
import type { ErrorBody } from '../error-handler.js';

/** OpenAI's error body. `code` is Troupe's stable error code (or a run's error type). */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

/** OpenAI-style `type` by HTTP status; these are also the error classes of the official SDKs. */
export function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** A body path (`body.messages.0.content`) as a field name: `messages[0].content`. */
function fieldName(path: string): string {
  return path
    .slice('body.'.length)
    .split('.')
    .map((segment, index) => (/^\d+$/.test(segment) ? `[${segment}]` : index === 0 ? segment : `.${segment}`))
    .join('');
}

/**
 * The request field at fault: named by the service, else the first validation issue's body path; an unknown
 * field (`unrecognized_keys`, reported on the object that holds it) is named by its own key.
 */
function paramOf(details: Record<string, unknown> | undefined): string | null {
  if (typeof details?.param === 'string') return details.param;
  const issues = details?.issues;
  if (!Array.isArray(issues)) return null;
  const first: unknown = issues[0];
  if (typeof first !== 'object' || first === null) return null;
  const { path, code, message } = first as { path?: unknown; code?: unknown; message?: unknown };
  if (typeof path !== 'string' || (path !== 'body' && !path.startsWith('body.'))) return null;
  const key =
    code === 'unrecognized_keys' && typeof message === 'string' ? /"([^"]+)"/.exec(message)?.[1] : undefined;
  const full = key === undefined ? path : `${path}.${key}`;
  return full === 'body' ? null : fieldName(full);
}

export function openAiError(
  status: number,
  code: string,
  message: string,
  param: string | null = null,
): OpenAiErrorBody {
  return { error: { message, type: openAiErrorType(status), param, code } };
}

function isTroupeErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== 'object' || value === null) return false;
  const error = (value as { error?: unknown }).error;
  return (
    typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
  );
}

/**
 * For `/v1/*`: every error the shared machinery answers (authentication, throttling, body parsing and
 * validation, services, unknown routes) is rewritten from Troupe's `{error: {code, message}}` into OpenAI's
 * `{error: {message, type, param, code}}`, with the same status and headers (`WWW-Authenticate`,
 * `Retry-After`). One place, so no route can leak the other shape.
 */
export const openAiErrorShape: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  const response = c.res;
  if (response.status < 400 || !(response.headers.get('content-type') ?? '').includes('application/json'))
    return;
  const body: unknown = await response
    .clone()
    .json()
    .catch(() => undefined);
  if (!isTroupeErrorBody(body)) return;
  const converted = openAiError(
    response.status,
    body.error.code,
    body.error.message,
    paramOf(body.error.details),
  );
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  // Cleared first: assigning over a response merges the old one's headers into the new one.
  c.res = undefined;
  c.res = new Response(JSON.stringify(converted), { status: response.status, headers });
};
