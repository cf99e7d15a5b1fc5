import { isTroupeError } from '../../../core/errors.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { Run } from '../../../core/records/run.js';

/** A unique key refused the write: the adapters report `request_id_conflict`, or the violated key. */
function isUniqueViolation(error: unknown): boolean {
  return (
    isTroupeError(error, 'request_id_conflict') ||
    (isTroupeError(error, 'internal') && typeof error.details?.constraint === 'string')
  );
}

/**
 * The one answer to two identical starts racing (a replayed tool call, a retried request): both pass the
 * replay look-up, one commits, the other hits a unique key. The loser looks the winner up by request id and
 * answers with it; the caller still checks the winner is its own. Any other error is not a race.
 */
export async function startRaceWinner(
  storage: Storage,
  error: unknown,
  userId: string,
  requestId: string | undefined,
): Promise<Run | undefined> {
  if (requestId === undefined || !isUniqueViolation(error)) return undefined;
  return storage.runs.getByRequestId(userId, requestId);
}
