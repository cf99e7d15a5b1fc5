import { TroupeError, type ErrorCode } from '../core/errors.js';
import type { EventBus } from '../core/ports/event-bus.js';
import type { RunQueue } from '../core/ports/run-queue.js';
import type { Storage } from '../core/ports/storage.js';

/** What readiness checks, in the order a failure is named. */
export const READINESS_CHECKS = ['storage', 'bus', 'queue'] as const;
export type ReadinessCheck = (typeof READINESS_CHECKS)[number];
export type CheckState = 'ok' | 'unavailable';
export type ReadinessChecks = Record<ReadinessCheck, CheckState>;
/** What a ready process reports: every check `ok`. */
export type ReadyChecks = Record<ReadinessCheck, 'ok'>;

const UNAVAILABLE: Record<ReadinessCheck, { code: ErrorCode; what: string }> = {
  storage: { code: 'storage_unavailable', what: 'the database' },
  bus: { code: 'bus_unavailable', what: 'the event bus' },
  queue: { code: 'queue_unavailable', what: 'the run queue' },
};

/** A probe answers in time rather than hang with a database that accepts connections but does not answer. */
const STORAGE_CHECK_MS = 2_000;
const RETRY_AFTER_SECONDS = 5;

function listed(names: readonly string[]): string {
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? '');
}

export interface ReadinessDeps {
  storage: Storage;
  bus: EventBus;
  queue: RunQueue;
  /** How long the storage check waits for the database's answer; default 2 s. */
  storageTimeoutMs?: number;
}

export interface Readiness {
  /**
   * Every check `ok`; otherwise throws a 503 `TroupeError` whose code names the first dependency that is down
   * (`storage_unavailable`, `bus_unavailable`, `queue_unavailable`) and whose details list every check.
   */
  check(): Promise<ReadyChecks>;
}

/**
 * Whether this process can serve: the database answers a trivial statement, and the event bus and run queue
 * (when they live outside the process) are connected. The bus and queue are read from their connection state,
 * with no round trip. Concurrent probes share one statement, so an unauthenticated probe route cannot put more
 * than one statement at a time on the database.
 */
export function createReadiness(deps: ReadinessDeps): Readiness {
  const timeoutMs = deps.storageTimeoutMs ?? STORAGE_CHECK_MS;
  let pinging: Promise<CheckState> | undefined;

  function pingStorage(): Promise<CheckState> {
    let timer: NodeJS.Timeout | undefined;
    const answered = deps.storage.ping().then(
      (): CheckState => 'ok',
      (): CheckState => 'unavailable',
    );
    const late = new Promise<CheckState>((resolve) => {
      timer = setTimeout(() => resolve('unavailable'), timeoutMs);
    });
    return Promise.race([answered, late]).finally(() => clearTimeout(timer));
  }

  return {
    async check() {
      const storage = await (pinging ??= pingStorage().finally(() => (pinging = undefined)));
      const checks: ReadinessChecks = {
        storage,
        bus: deps.bus.health?.connected === false ? 'unavailable' : 'ok',
        queue: deps.queue.health?.connected === false ? 'unavailable' : 'ok',
      };
      const down = READINESS_CHECKS.filter((name) => checks[name] === 'unavailable');
      const first = down[0];
      if (first === undefined) return { storage: 'ok', bus: 'ok', queue: 'ok' };
      throw new TroupeError(
        UNAVAILABLE[first].code,
        `Not ready: ${listed(down.map((name) => UNAVAILABLE[name].what))} ${down.length > 1 ? 'are' : 'is'} unavailable`,
        { details: { checks, retry_after_seconds: RETRY_AFTER_SECONDS } },
      );
    },
  };
}
