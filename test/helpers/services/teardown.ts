/**
 * Everything a suite started outside its own process (database servers, server processes), stopped in reverse
 * order of start: at the end of the suite, on failure, and on SIGINT/SIGTERM (Ctrl-C reaches the whole
 * process group; the suite must not leave a PostgreSQL cluster or a Redis behind when it is interrupted).
 */
export interface Teardown {
  /** Registers a stop step; register before starting the thing, so a half-finished start is still stopped. */
  add(label: string, stop: () => Promise<void>): void;
  /** Runs every step once (later registrations first); a failing step is reported and the others still run. */
  run(): Promise<void>;
}

export function createTeardown(log: (message: string) => void): Teardown {
  const steps: { label: string; stop: () => Promise<void> }[] = [];
  let running: Promise<void> | undefined;

  async function runAll(): Promise<void> {
    for (const step of steps.splice(0).reverse()) {
      try {
        await step.stop();
      } catch (error) {
        log(`stopping ${step.label} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  const onSignal = (signal: NodeJS.Signals, code: number) => () => {
    log(`${signal}: stopping everything this suite started`);
    void (running ??= runAll()).finally(() => process.exit(code));
  };
  process.once('SIGINT', onSignal('SIGINT', 130));
  process.once('SIGTERM', onSignal('SIGTERM', 143));

  return {
    add(label, stop) {
      steps.push({ label, stop });
    },
    run() {
      running ??= runAll();
      return running.then(() => {
        running = undefined;
      });
    },
  };
}
