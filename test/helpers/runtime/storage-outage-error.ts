import { TroupeError } from '../../../src/core/errors.js';

/**
 * What storage throws while the database is away (the PostgreSQL adapter's `storageUnavailable`), for tests of
 * the layers above it, which may not import an adapter: `'unknown'` for a statement whose answer was lost with
 * its connection (it may have been done), nothing for one that surely wrote nothing.
 */
export function storageOutageError(committed?: 'unknown'): TroupeError {
  return new TroupeError('storage_unavailable', 'The database is unavailable; try again shortly', {
    ...(committed ? { details: { committed } } : {}),
  });
}
