/**
 * The one SQLite connection's lock, handed over in arrival order. Kysely's driver, the direct path
 * (`direct-query-runner.ts`) and the direct transactions (`direct-transactions.ts`) all take it here, so none
 * of them ever runs a statement inside another's transaction or overtakes a waiter.
 */
export class ConnectionGate {
  /** Who holds or waits for the connection; the direct path runs a statement at once only when nobody does. */
  pending = 0;
  #tail: Promise<void> = Promise.resolve();

  /** The connection at once when nobody holds or waits for it, else undefined (use `hold`). */
  tryHold(): (() => void) | undefined {
    return this.pending > 0 ? undefined : this.#enter();
  }

  /** Waits for everyone who came first; the function releases the connection (once). */
  async hold(): Promise<() => void> {
    const previous = this.#tail;
    const release = this.#enter();
    await previous;
    return release;
  }

  #enter(): () => void {
    this.pending += 1;
    let open: () => void = () => undefined;
    this.#tail = new Promise<void>((resolve) => (open = resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.pending -= 1;
      open();
    };
  }
}
