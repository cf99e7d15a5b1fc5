import { existsSync, readFileSync } from 'node:fs';

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid in the first line of a pidfile (PostgreSQL's postmaster.pid, Redis's pidfile), if there is one. */
export function pidFromFile(pidFile: string): number | undefined {
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/**
 * Stops a daemon this bench started, by the pid in the first line of its pidfile (never by name): `signal`,
 * then SIGKILL when it is still there after `graceMs`. A missing or empty pidfile means it never started.
 */
export async function stopPidFile(pidFile: string, signal: NodeJS.Signals, graceMs = 10_000): Promise<void> {
  const pid = pidFromFile(pidFile);
  if (pid === undefined || !isRunning(pid)) return;
  process.kill(pid, signal);
  const deadline = Date.now() + graceMs;
  while (isRunning(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (isRunning(pid)) process.kill(pid, 'SIGKILL');
}
