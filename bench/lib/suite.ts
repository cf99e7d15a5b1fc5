import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

export interface SuiteOptions {
  /** Smaller sample counts: a smoke run of the bench itself, not for publishing. */
  quick: boolean;
}

/**
 * Entry point of a suite run as a child process by `bench/run.ts`: `--out FILE` receives the JSON result,
 * progress goes to stderr. Each suite has a process of its own, so one suite's heap and loaded modules do
 * not skew another's memory or timing.
 */
export async function runSuite(
  name: string,
  body: (options: SuiteOptions) => Promise<unknown>,
): Promise<void> {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, quick: { type: 'boolean', default: false } },
  });
  try {
    const result = await body({ quick: values.quick });
    const json = `${JSON.stringify(result, null, 2)}\n`;
    if (values.out) writeFileSync(values.out, json);
    else process.stdout.write(json);
    process.exit(0);
  } catch (error) {
    process.stderr.write(
      `[${name}] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  }
}

/** Progress lines on stderr (stdout may carry the result). */
export function progress(suite: string, message: string): void {
  process.stderr.write(`[${suite}] ${message}\n`);
}

/** Runs a major GC between phases when the process was started with --expose-gc (never inside a timed region). */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) gc();
}
