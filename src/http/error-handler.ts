import type { Context, ErrorHandler } from 'hono';
import { inspect } from 'node:util';
import { HTTPException } from 'hono/http-exception';
import type { ErrorCode } from '../core/errors.js';
import { toTroupeError, TroupeError } from '../core/errors.js';
import type { AppEnv } from './app-env.js';
import { errorStatus } from './error-status.js';
import type { Logger } from './logger.js';

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: Record<string, unknown> };
}

/** Hono's own exceptions (e.g. from a third-party middleware) carry only a status; give them a code. */
function fromHttpException(exception: HTTPException): TroupeError {
  const byStatus: Partial<Record<number, ErrorCode>> = {
    400: 'validation_failed',
    401: 'unauthorized',
    403: 'forbidden',
    404: 'route_not_found',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
  };
  const code = byStatus[exception.status] ?? 'internal';
  return new TroupeError(code, exception.message || code, { cause: exception });
}

export function errorResponse(c: Context<AppEnv>, error: TroupeError): Response {
  const body: ErrorBody = { error: { code: error.code, message: error.message } };
  if (error.details !== undefined) body.error.details = { ...error.details };
  const status = errorStatus(error.code);
  if (error.code === 'unauthorized') c.header('WWW-Authenticate', 'Bearer realm="troupe"');
  // Any error that says when to try again (rate limits, a locked database) says it in the header too.
  const retryAfter = error.details?.retry_after_seconds;
  if (typeof retryAfter === 'number') c.header('Retry-After', String(retryAfter));
  return c.json(body, status);
}

/**
 * The last stop of every failure: a JSON `{error: {code, message}}` and never a stack. Internal errors are
 * logged with their cause and answered with a fixed message, since their text may name files or queries.
 */
export function createErrorHandler(logger: Logger): ErrorHandler<AppEnv> {
  return (thrown, c) => {
    const error = thrown instanceof HTTPException ? fromHttpException(thrown) : toTroupeError(thrown);
    if (errorStatus(error.code) >= 500) {
      const cause = error.cause ?? error;
      logger.error('request failed', {
        method: c.req.method,
        path: c.req.path,
        code: error.code,
        error: cause instanceof Error ? (cause.stack ?? cause.message) : inspect(cause),
      });
      if (error.code === 'internal')
        return errorResponse(c, new TroupeError('internal', 'Internal server error'));
    }
    return errorResponse(c, error);
  };
}
