import { TroupeError } from '../../../core/errors.js';

export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * SQLITE_BUSY past the busy timeout becomes `storage_busy` (503, Retry-After): the statement or BEGIN that
 * failed wrote nothing, so the client may send the same request again. Any other error passes unchanged.
 */
export function busyAsTroupeError(error: unknown): unknown {
  if (!isSqliteBusy(error)) return error;
  return new TroupeError('storage_busy', 'The database is locked by another connection; try again shortly', {
    cause: error,
    details: { retry_after_seconds: 1 },
  });
}
