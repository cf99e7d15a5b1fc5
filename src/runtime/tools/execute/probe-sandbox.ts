import { chown, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { toTroupeError } from '../../../core/errors.js';
import { createBwrapSandbox, defaultSandboxMode } from './bwrap-sandbox.js';
import { locateSandboxTools } from './locate-sandbox-tools.js';
import { sandboxHostOwner } from './sandbox-host-owner.js';
import type { Sandbox } from './sandbox.js';

export type SandboxAvailability =
  { available: true; sandbox: Sandbox } | { available: false; reason: string };

export interface ProbeOptions {
  /** TROUPE_BWRAP_PATH; unset looks for `bwrap` in the system directories. */
  bwrapPath: string | undefined;
  sandboxUid: number;
}

const PROBE_LIMITS = {
  timeoutMs: 10_000,
  cpuSeconds: 5,
  memoryBytes: 256 * 1024 * 1024,
  maxProcesses: 16,
  outputBytes: 4096,
  fileBytes: 1024 * 1024,
  tmpBytes: 1024 * 1024,
};

const cache = new Map<string, Promise<SandboxAvailability>>();

/**
 * Whether `execute` can be offered here: the binaries exist and a trivial command really runs in the
 * sandbox (namespaces may be refused by the kernel or a container runtime). Cached per binary and uid,
 * so every server in one process probes once.
 */
export function probeSandbox(options: ProbeOptions): Promise<SandboxAvailability> {
  const key = `${options.bwrapPath ?? ''}\0${options.sandboxUid}\0${defaultSandboxMode()}`;
  let probe = cache.get(key);
  if (!probe) {
    probe = runProbe(options);
    cache.set(key, probe);
  }
  return probe;
}

async function runProbe(options: ProbeOptions): Promise<SandboxAvailability> {
  const located = locateSandboxTools(options.bwrapPath);
  if ('reason' in located) return { available: false, reason: located.reason };
  const sandbox = createBwrapSandbox({ tools: located.tools, sandboxUid: options.sandboxUid });
  const workdir = await mkdtemp(path.join(os.tmpdir(), 'troupe-sandbox-probe-'));
  try {
    // The sandbox's host uid must reach it, as it reaches a project workdir it owns.
    const owner = sandboxHostOwner(options.sandboxUid);
    if (owner) await chown(workdir, owner.uid, owner.gid);
    const result = await sandbox.run({ command: 'exit 0', workdir, network: false, limits: PROBE_LIMITS });
    if (result.exitCode === 0) return { available: true, sandbox };
    const detail =
      firstLine(result.stderr) ??
      (result.timedOut ? 'timed out' : `exit code ${result.exitCode ?? result.signal}`);
    return {
      available: false,
      reason: `the bubblewrap sandbox does not start here (${detail}); user namespaces may be disabled`,
    };
  } catch (error) {
    return {
      available: false,
      reason: `the bubblewrap sandbox does not start here (${toTroupeError(error).message})`,
    };
  } finally {
    await rm(workdir, { recursive: true, force: true });
  }
}

function firstLine(text: string): string | undefined {
  return text
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim();
}
