import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

/** Host binaries the sandbox needs; `prlimit` runs inside it, so it must live under /usr or /bin. */
export interface SandboxTools {
  bwrap: string;
  prlimit: string;
}

/** Searched instead of $PATH, so what the sandbox runs does not depend on the server's environment. */
const SYSTEM_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function find(name: string): string | undefined {
  return SYSTEM_DIRS.map((dir) => path.join(dir, name)).find(isExecutable);
}

/** The binaries, or why the sandbox cannot work here (shown in the start-up log and build reports). */
export function locateSandboxTools(
  bwrapPath: string | undefined,
): { tools: SandboxTools } | { reason: string } {
  const bwrap = bwrapPath !== undefined ? (isExecutable(bwrapPath) ? bwrapPath : undefined) : find('bwrap');
  if (bwrap === undefined) {
    return {
      reason:
        bwrapPath !== undefined
          ? `bubblewrap not found at ${bwrapPath} (TROUPE_BWRAP_PATH; install the Debian package bubblewrap)`
          : 'bubblewrap not found (install the Debian package bubblewrap)',
    };
  }
  const prlimit = find('prlimit');
  if (!prlimit) return { reason: 'prlimit not found (install the Debian package util-linux)' };
  return { tools: { bwrap, prlimit } };
}
