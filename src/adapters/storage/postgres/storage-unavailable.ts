import { TroupeError } from '../../../core/errors.js';

/**
 * SQLSTATEs of a server that is going away, restarting or refusing connections for now: class 08 (connection
 * exception), 57P01 admin shutdown (a fast restart terminates every backend with it), 57P02 crash shutdown,
 * 57P03 cannot connect now (starting up, shutting down, recovering), 57P05 idle session timeout, 53300 too many
 * connections.
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[1235]|53300)$/;

/** Socket failures: the server is down, restarting, or the network between is. */
const UNAVAILABLE_ERRNO = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/** node-postgres reports a dead or timed-out connection without a code, only with these messages. */
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error|Client was closed and is not queryable|timeout exceeded when trying to connect|Query read timeout|timeout expired)/;

/** Seconds a client is told to wait (`Retry-After`): a fast restart of PostgreSQL takes about one. */
const STORAGE_RETRY_AFTER_SECONDS = 2;

export function isStorageUnavailable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code)))
    return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message);
}

/**
 * `storage_unavailable` (503 with `Retry-After`) caused by `cause`. `outcomeUnknown` adds `committed: 'unknown'`:
 * the statement may have been done before the connection died (docs/scale-out.md, "Outages").
 */
export function storageUnavailable(message: string, cause: unknown, outcomeUnknown = false): TroupeError {
  return new TroupeError('storage_unavailable', message, {
    cause,
    details: {
      retry_after_seconds: STORAGE_RETRY_AFTER_SECONDS,
      ...(outcomeUnknown ? { committed: 'unknown' } : {}),
    },
  });
}

/**
 * A connection-class failure of PostgreSQL as `storage_unavailable`; anything else unchanged. The outcome is
 * unknown for a COMMIT, or a statement outside a transaction, once sent; any other such failure wrote nothing.
 */
export function unavailableAsTroupeError(error: unknown, outcomeUnknown = false): unknown {
  if (error instanceof TroupeError || !isStorageUnavailable(error)) return error;
  return storageUnavailable('The database is unavailable; try again shortly', error, outcomeUnknown);
}
