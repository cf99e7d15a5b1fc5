/**
 * Wakes the event streams of a session when this process started a turn in it, so they follow the turn at
 * once; turns started by other processes (the console, another server) are found by the streams' periodic
 * look at the conversation's runs.
 */
export class SessionWakeups {
  private readonly waiting = new Map<string, Set<() => void>>();

  notify(sessionId: string): void {
    const listeners = this.waiting.get(sessionId);
    if (!listeners) return;
    this.waiting.delete(sessionId);
    for (const wake of listeners) wake();
  }

  /** Resolves on the session's next `notify`, after `timeoutMs`, or when `signal` aborts, whichever is first. */
  wait(sessionId: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const listeners = this.waiting.get(sessionId) ?? new Set<() => void>();
      this.waiting.set(sessionId, listeners);
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        listeners.delete(done);
        if (listeners.size === 0 && this.waiting.get(sessionId) === listeners) this.waiting.delete(sessionId);
        resolve();
      };
      const timer = setTimeout(done, timeoutMs);
      signal.addEventListener('abort', done, { once: true });
      listeners.add(done);
    });
  }
}
