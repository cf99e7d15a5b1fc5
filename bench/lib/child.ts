import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { BENCH_BUILD_DIR } from './bench-build.js';
import { REPO_DIR, RUNNING_COMPILED } from './root-require.js';

/**
 * Starts `bench/<file>` (named by its TypeScript source) in a process of its own: compiled when the caller runs
 * compiled, or when told to (`bench/run.ts` starts the suites from the build it made), else under tsx. stdout
 * is piped (see readLines) or inherited, stderr inherited.
 */
export function spawnBenchScript(
  file: string,
  args: string[] = [],
  nodeFlags: string[] = [],
  stdout: 'pipe' | 'inherit' = 'pipe',
  compiled = RUNNING_COMPILED,
): ChildProcess {
  const entry = compiled
    ? [path.join(BENCH_BUILD_DIR, 'bench', file.replace(/\.ts$/, '.js'))]
    : ['--import', 'tsx', path.join(REPO_DIR, 'bench', file)];
  return spawn(process.execPath, [...nodeFlags, ...entry, ...args], {
    cwd: REPO_DIR,
    stdio: ['pipe', stdout, 'inherit'],
  });
}

export interface LineReader {
  /** Resolves with the first stdout line (seen so far or later) that satisfies `match`. */
  waitFor(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Like `waitFor`, but only lines printed from now on count (answers to a command just sent). */
  waitForNext(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
}

/** Buffers every stdout line of `child`, so a line printed before anyone waits for it is not lost. */
export function readLines(child: ChildProcess): LineReader {
  if (!child.stdout) throw new Error('child has no stdout pipe');
  const seen: string[] = [];
  const waiters = new Set<(line: string) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    seen.push(line);
    for (const waiter of [...waiters]) waiter(line);
  });
  const waitForNext = (match: (line: string) => boolean, timeoutMs = 60_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        waiters.delete(waiter);
        child.off('exit', onExit);
      };
      const waiter = (line: string) => {
        if (!match(line)) return;
        finish();
        resolve(line);
      };
      const onExit = (code: number | null) => {
        finish();
        reject(new Error(`pid ${child.pid} exited (${code}) before the expected line`));
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`no expected line from pid ${child.pid} within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(waiter);
      child.once('exit', onExit);
    });
  return {
    waitFor(match, timeoutMs) {
      const earlier = seen.find(match);
      return earlier !== undefined ? Promise.resolve(earlier) : waitForNext(match, timeoutMs);
    },
    waitForNext,
  };
}

/** Resolves with the exit code (waits for the child to end). */
export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Ends a child this bench started, by its own pid (SIGTERM, then SIGKILL after `graceMs`). */
export async function stopChild(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited(child);
  clearTimeout(timer);
}
