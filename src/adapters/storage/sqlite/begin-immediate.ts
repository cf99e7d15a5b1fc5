import { busyAsTroupeError, isSqliteBusy } from './busy-error.js';

const RETRY_PAUSES_MS = [1, 2, 5, 10, 20, 50];

/**
 * BEGIN IMMEDIATE, tried again while SQLite refuses it with SQLITE_BUSY, until `busyTimeoutMs` has passed.
 *
 * IMMEDIATE: the write lock is taken at BEGIN, where SQLite's busy handler waits for another writer (the
 * checkpoint worker restarting the WAL, a CLI command in another process). A deferred BEGIN takes it at the
 * first write, and a transaction that has read by then is refused at once with "database is locked": SQLite
 * does not wait on an upgrade from a read snapshot, since the other writer might be waiting for that reader.
 * This connection is the server's only writer and runs one transaction at a time, so nothing is serialized
 * that was not already.
 *
 * SQLite can still refuse the BEGIN before its busy timeout is spent: under sustained writes, a BEGIN that
 * met the checkpoint worker's RESTART failed with SQLITE_BUSY after 21–29 ms of a 5 s timeout (the HTTP
 * bench's API-only load, a few times per 3,000 requests), and the whole commit group failed with it. A
 * BEGIN that failed holds nothing, so it is tried again, after a pause that does not block the event loop.
 * Past the timeout the error is `storage_busy`.
 */
export async function beginImmediate(begin: () => unknown, busyTimeoutMs: number): Promise<void> {
  const deadline = performance.now() + busyTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      await begin();
      return;
    } catch (error) {
      const pause = RETRY_PAUSES_MS[Math.min(attempt, RETRY_PAUSES_MS.length - 1)] ?? 0;
      if (!isSqliteBusy(error) || performance.now() + pause > deadline) throw busyAsTroupeError(error);
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }
}
