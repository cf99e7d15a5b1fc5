import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { eventually } from './eventually.js';

export { delay, eventually } from './eventually.js';

/** This helper's tree: the repository, or the compiled bench (`.bench-build/`), whose server is compiled too. */
const TREE = path.resolve(import.meta.dirname, '../..');
const COMPILED = path.basename(TREE) === '.bench-build';
const REPO_ROOT = COMPILED ? path.dirname(TREE) : TREE;
/** `troupe` as a deployment starts it: the command under tsx, or the compiled entry of the compiled bench. */
const ENTRY = COMPILED ? path.join(TREE, 'src', 'main.js') : path.join(REPO_ROOT, 'bin', 'troupe.js');
/** tsx compiles the server on start; on a loaded 2-core machine that takes a while. */
export const START_TIMEOUT_MS = 90_000;

/**
 * One `troupe serve` process started as a deployment starts it (`node bin/troupe.js serve --role …`), with the
 * tail of its output kept for assertions, failure reports and the lines that announce its URL, token or pid.
 * The scale-out e2e suites and the scale-out benchmark both run their clusters on it.
 */
export class ServerProcess {
  readonly child: ChildProcess;
  output = '';

  constructor(
    readonly name: string,
    args: string[],
    env: NodeJS.ProcessEnv,
  ) {
    // `TROUPE_CPU_PROF_DIR`: each process writes a V8 CPU profile there when it exits (finding where a
    // scale-out dispatch spends its CPU: BENCHMARKS.md); Node refuses --cpu-prof in NODE_OPTIONS.
    const profile = process.env.TROUPE_CPU_PROF_DIR;
    const flags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
    this.child = spawn(process.execPath, [...flags, ENTRY, 'serve', ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const append = (chunk: Buffer): void => {
      // Bounded: a chatty process must not grow the memory of whoever watches it.
      this.output = (this.output + chunk.toString('utf8')).slice(-64 * 1024);
    };
    this.child.stdout?.on('data', append);
    this.child.stderr?.on('data', append);
  }

  get pid(): number {
    if (this.child.pid === undefined) throw new Error(`${this.name} has no pid`);
    return this.child.pid;
  }

  get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** The tail of what the process printed, for error messages. */
  tail(): string {
    return `--- ${this.name} (pid ${this.child.pid}) ---\n${this.output.slice(-4000)}`;
  }

  /** The first match of `pattern` in the output; fails when the process exits first or time runs out. */
  async waitFor(pattern: RegExp, timeoutMs = START_TIMEOUT_MS): Promise<RegExpMatchArray> {
    // null ends the wait at once: a process that exited will never print it.
    const match = await eventually(`${this.name} to print ${String(pattern)}`, timeoutMs, () =>
      Promise.resolve(pattern.exec(this.output) ?? (this.exited ? null : undefined)),
    );
    if (match === null) throw new Error(`${this.name} exited early:\n${this.tail()}`);
    return match;
  }

  /** `kill -9`: no shutdown hook runs, the runs it holds keep their leases until they expire. */
  async killHard(): Promise<void> {
    const gone = this.whenExited();
    this.child.kill('SIGKILL');
    await gone;
  }

  /** A graceful stop (SIGTERM hands its runs back), then SIGKILL after `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    if (this.exited) return;
    const gone = this.whenExited();
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await gone;
    clearTimeout(timer);
  }

  private whenExited(): Promise<void> {
    if (this.exited) return Promise.resolve();
    return new Promise((resolve) => this.child.once('exit', () => resolve()));
  }
}
