import {
  chmodSync,
  chownSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
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

export interface SandboxWorkdir {
  /** A temp folder laid out like the data dir: the caller removes it. */
  root: string;
  /** `root/workdir`, as Troupe makes a project workdir. */
  workdir: string;
}

/**
 * A workdir set up as Troupe sets one up for a sandbox running as `sandboxUid` (`prepareDataDir`, project
 * creation): as root, the folder above it 0710 with that uid's group and the workdir 0700 owned by it; as any
 * other user, both 0700 and the user's own.
 */
export function makeSandboxWorkdir(prefix: string, sandboxUid: number): SandboxWorkdir {
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  const workdir = path.join(root, 'workdir');
  mkdirSync(workdir, { mode: 0o700 });
  if (process.getuid?.() === 0) {
    chownSync(root, 0, sandboxUid);
    chmodSync(root, 0o710);
    chownSync(workdir, sandboxUid, sandboxUid);
  }
  return { root, workdir };
}

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

/**
 * Host processes running as `uid` (real uid); with `commandsOnly`, not bubblewrap's own (its monitor and the
 * namespace's init run as the sandbox uid too): only what the command started.
 */
export function hostProcessesOfUid(uid: number, commandsOnly = false): number {
  let count = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      if (!new RegExp(`^Uid:\\s+${uid}\\s`, 'm').test(status)) continue;
      if (commandsOnly && /^Name:\s+bwrap$/m.test(status)) continue;
      count++;
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
