import type { Clock } from '../clock.js';
import { isTroupeError } from '../errors.js';
import { RunAbortError } from './run-abort.js';

/** Back-off between tries while the database is away: 100 ms doubling to 1 s (a fast restart takes about 1 s). */
const FIRST_WAIT_MS = 100;
const MAX_WAIT_MS = 1_000;

/** The database was unreachable (`storage_unavailable`), whatever the statement did. */
export function isStorageOutage(error: unknown): boolean {
  return isTroupeError(error, 'storage_unavailable');
}

/** An outage whose write may have been done (`committed: 'unknown'`: docs/scale-out.md, "Outages"). */
export function isOutcomeUnknown(error: unknown): boolean {
  return (
    isStorageOutage(error) &&
    (error as { details?: { committed?: unknown } }).details?.committed === 'unknown'
  );
}

/** An outage that surely wrote nothing: the same write may be sent again without doing anything twice. */
export function wroteNothing(error: unknown): boolean {
  return isStorageOutage(error) && !isOutcomeUnknown(error);
}

/**
 * How a worker waits out a database outage under a run it holds (docs/scale-out.md, "Outages"): the run keeps
 * its slot and its lease, and goes on from where it was once the database answers, instead of being left to
 * expire and be resumed, with its calls in flight, by another worker.
 */
export interface StorageOutage {
  /**
   * Waits, with back-off, until the database answers and the run's lease is still this worker's (renewed).
   * Throws to stop: the run's abort reason (a cancel, a shutdown), or `lease_lost` when the lease runs out
   * before the database is back: past it another worker may take the run, and nothing of this attempt may land.
   */
  waitOut(): Promise<void>;
  /**
   * After an attempt failed with `thrown`: undefined once an outage was waited out (the attempt starts over),
   * else the error the attempt ends with (`thrown`, or why waiting stopped).
   */
  settle(thrown: unknown): Promise<unknown>;
}

/** What waiting out an outage needs of the run's lease (`HeldLease`). */
interface RenewableLease {
  renewNow(): Promise<boolean>;
  expiresAt(): number;
}

/**
 * A read (it cannot do anything twice) tried again each time an outage that met it is waited out; without an
 * outage to wait out (a caller outside a run), its failure is thrown as it is.
 */
export async function readingThrough<T>(
  outage: StorageOutage | undefined,
  read: () => Promise<T>,
): Promise<T> {
  for (;;) {
    try {
      return await read();
    } catch (error) {
      if (!outage || !isStorageOutage(error)) throw error;
      await outage.waitOut();
    }
  }
}

/**
 * A write tried again each time an outage that met it is waited out, when that outage surely wrote nothing.
 * One whose outcome is unknown (docs/scale-out.md, "Outages") throws, unless `unknown` says what to do with
 * it once the outage is over: send it again (`'again'`: doing it twice errs on the safe side) or answer
 * `{ instead }` without sending it (losing it errs on the safe side).
 */
export async function writingThrough<T>(
  outage: StorageOutage | undefined,
  write: () => Promise<T>,
  unknown?: 'again' | { instead: T },
): Promise<T> {
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (!outage || !isStorageOutage(error)) throw error;
      const mayHaveLanded = isOutcomeUnknown(error);
      if (mayHaveLanded && unknown === undefined) throw error;
      await outage.waitOut();
      if (mayHaveLanded && typeof unknown === 'object') return unknown.instead;
    }
  }
}

/** The back-off's next wait. */
export function nextOutageWait(wait: number | undefined): number {
  return wait === undefined ? FIRST_WAIT_MS : Math.min(MAX_WAIT_MS, 2 * wait);
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (!signal) return new Promise((resolve) => setTimeout(resolve, ms));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export function createStorageOutage(deps: {
  lease: RenewableLease;
  signal: AbortSignal;
  clock: Clock;
  leaseMs: number;
}): StorageOutage {
  const { lease, signal, clock } = deps;
  // Stop short of the lease's end: a write sent just before it could land after another worker took over.
  const margin = Math.min(5_000, Math.floor(deps.leaseMs / 5));
  const outage: StorageOutage = {
    async settle(thrown) {
      if (!isStorageOutage(thrown) || signal.aborted) return thrown;
      try {
        await outage.waitOut();
        return undefined;
      } catch (stop) {
        return stop;
      }
    },
    async waitOut() {
      for (let wait = nextOutageWait(undefined); ; wait = nextOutageWait(wait)) {
        signal.throwIfAborted();
        const left = lease.expiresAt() - margin - clock.now().getTime();
        if (left <= 0) throw new RunAbortError('lease_lost');
        await sleep(Math.min(wait, left), signal);
        try {
          if (await lease.renewNow()) return;
          // The lease is gone or a cancel was committed: `renewNow` aborted the run with the reason.
          signal.throwIfAborted();
          throw new RunAbortError('lease_lost');
        } catch (error) {
          if (!isStorageOutage(error)) throw error;
        }
      }
    },
  };
  return outage;
}
