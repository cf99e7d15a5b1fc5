export interface InactivityWatchdog {
  /** The run did something (an event, a streamed delta). */
  touch(): void;
  /** Runs `work` with the clock stopped: a run waiting on another run is not idle. */
  paused<T>(work: () => Promise<T>): Promise<T>;
  stop(): void;
}

/**
 * Calls `onIdle` once when nothing touched it for `timeoutMs` while not paused (docs/budgets.md: a running child
 * that emits nothing for its inactivity timeout is interrupted). One timer, re-armed lazily.
 */
export function createInactivityWatchdog(timeoutMs: number, onIdle: () => void): InactivityWatchdog {
  let last = Date.now();
  let pausedBy = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const arm = (delay: number) => {
    timer = setTimeout(check, Math.max(1, delay));
    timer.unref();
  };
  function check(): void {
    if (stopped) return;
    const idle = Date.now() - last;
    if (pausedBy > 0 || idle < timeoutMs) {
      arm(pausedBy > 0 ? timeoutMs : timeoutMs - idle);
      return;
    }
    stopped = true;
    onIdle();
  }
  arm(timeoutMs);

  return {
    touch() {
      last = Date.now();
    },
    async paused(work) {
      pausedBy += 1;
      try {
        return await work();
      } finally {
        pausedBy -= 1;
        last = Date.now();
      }
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
