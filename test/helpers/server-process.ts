import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

const REPO_ROOT = path.resolve(import.meta.dirname, '../..');
/** tsx compiles the server on start; on a loaded 2-core CI machine that takes a while. */
export const START_TIMEOUT_MS = 90_000;

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` until it returns a value, failing with `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(100);
  }
}

/** A `troupe serve` child process, with its output kept for assertions and failure reports. */
export class ServerProcess {
  readonly child: ChildProcess;
  output = '';
  exited = false;

  constructor(
    readonly name: string,
    args: string[],
    env: NodeJS.ProcessEnv,
  ) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve', ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const append = (chunk: Buffer): void => {
      // Bounded: a chatty process must not eat the test runner's memory.
      this.output = (this.output + chunk.toString('utf8')).slice(-64 * 1024);
    };
    this.child.stdout?.on('data', append);
    this.child.stderr?.on('data', append);
    this.child.once('exit', () => (this.exited = true));
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.name} has no pid`);
    return this.child.pid;
  }

  /** Resolves with the first match of `pattern` in the output, or fails when the process exits or time runs out. */
  waitFor(pattern: RegExp, timeoutMs = START_TIMEOUT_MS): Promise<RegExpMatchArray> {
    return eventually(`${this.name} to print ${String(pattern)}`, timeoutMs, () => {
      const match = pattern.exec(this.output);
      if (match) return Promise.resolve(match);
      if (this.exited) return Promise.reject(new Error(`${this.name} exited early:\n${this.output}`));
      return Promise.resolve(undefined);
    });
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }
}
