import { readdirSync, readFileSync } from 'node:fs';
import {
  locateSandboxTools,
  type SandboxTools,
} from '../../../src/runtime/tools/execute/locate-sandbox-tools.js';
import type { SandboxLimits } from '../../../src/runtime/tools/execute/sandbox.js';

/** The real binaries, or why the sandbox suites are skipped (CI installs bubblewrap, so they run there). */
export const SANDBOX_TOOLS: SandboxTools | undefined = (() => {
  const located = locateSandboxTools(undefined);
  return 'tools' in located ? located.tools : undefined;
})();

export const SANDBOX_SKIP_REASON = SANDBOX_TOOLS
  ? ''
  : ' (skipped: bubblewrap is not installed; apt-get install bubblewrap)';

export const TEST_LIMITS: SandboxLimits = {
  timeoutMs: 30_000,
  cpuSeconds: 30,
  memoryBytes: 1024 * 1024 * 1024,
  maxProcesses: 64,
  outputBytes: 64 * 1024,
  fileBytes: 64 * 1024 * 1024,
  tmpBytes: 16 * 1024 * 1024,
};

/** Host processes whose command line contains `marker` (a unique argument the test gave them). */
export function hostProcessesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) found.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

/** Host processes running as `uid` (real uid). */
export function hostProcessesOfUid(uid: number): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status)) count++;
    } catch {
      // Exited while we looked.
    }
  }
  return count;
}

/** Resolves once `check` holds, re-checking every 20 ms; rejects after `limitMs` with `what`. */
export async function until(check: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
