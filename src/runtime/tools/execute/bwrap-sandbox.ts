import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { TroupeError, toTroupeError } from '../../../core/errors.js';
import { openSkillsRoot } from '../workdir/open-skills-root.js';
import { openWorkdirDirectory } from '../workdir/open-workdir-directory.js';
import type { WorkdirDirectory } from '../workdir/workdir-directory.js';
import { BWRAP_FD, bwrapArgs, SANDBOX_GROUP, SANDBOX_PASSWD } from './bwrap-args.js';
import { createCappedOutput } from './capped-output.js';
import { readHostLayout, type HostLayout } from './host-layout.js';
import type { SandboxTools } from './locate-sandbox-tools.js';
import type { Sandbox, SandboxRequest, SandboxResult } from './sandbox.js';
import { userNamespaceSeccompFilter } from './seccomp-filter.js';

/**
 * Who bubblewrap runs as. `mapped` (Troupe runs as root): the runner starts it as the dedicated unprivileged
 * sandbox uid, so the user namespace it makes maps that uid and nothing else: host root is never mapped, and
 * the command holds no capability over any file it does not own. (A user namespace root creates must map host
 * root for bubblewrap to set it up, which is why bubblewrap does not run as root at all.) The kernel enforces
 * the process limit for that uid, which it never does for host root. `user` (any other uid): bubblewrap runs
 * as Troupe's own user, mapped the same way.
 */
export type SandboxMode = 'mapped' | 'user';

export interface BwrapSandboxOptions {
  tools: SandboxTools;
  /** Host uid/gid of sandboxed processes in `mapped` mode. */
  sandboxUid: number;
  /** Default: `mapped` when this process runs as root, else `user` (refused as root: it would map root). */
  mode?: SandboxMode;
  layout?: HostLayout;
}

export function defaultSandboxMode(): SandboxMode {
  return process.getuid?.() === 0 ? 'mapped' : 'user';
}

/** bubblewrap's sandbox (README "Sandboxed `execute`"): every command gets fresh namespaces and limits. */
export function createBwrapSandbox(options: BwrapSandboxOptions): Sandbox {
  const mode = options.mode ?? defaultSandboxMode();
  if (mode === 'user' && process.getuid?.() === 0) {
    throw new TroupeError(
      'config_invalid',
      'The user-mode sandbox would map host root; as root it runs mapped',
    );
  }
  const layout = options.layout ?? readHostLayout();
  const seccomp = userNamespaceSeccompFilter();
  const identity = mode === 'mapped' ? { uid: options.sandboxUid, gid: options.sandboxUid } : {};

  async function run(request: SandboxRequest): Promise<SandboxResult> {
    request.signal?.throwIfAborted();
    const args = bwrapArgs({
      tools: options.tools,
      layout,
      command: request.command,
      network: request.network,
      limits: request.limits,
      seccomp: seccomp !== undefined,
    });
    const { workdir, skills } = await openMounts(request.workdir);
    let child: ChildProcess;
    try {
      child = spawn(options.tools.bwrap, args, {
        stdio: [
          'ignore',
          'pipe',
          'pipe',
          'pipe',
          'pipe',
          seccomp ? 'pipe' : 'ignore',
          workdir.handle.fd,
          skills.handle.fd,
        ],
        // Its own process group, so one kill reaches bubblewrap and the namespace's init (whose death ends the
        // whole pid namespace); the command itself runs in a new session inside.
        detached: true,
        env: { PATH: '/usr/bin:/bin' },
        cwd: '/',
        ...identity,
      });
    } finally {
      // bubblewrap holds its own copies once spawned. Not awaited: a spawn error is emitted on the next tick,
      // before the listeners below would be attached.
      void Promise.all([workdir.close(), skills.close()]).catch(() => undefined);
    }
    const output = createCappedOutput(request.limits.outputBytes);
    child.stdout?.on('data', (chunk: Buffer) => output.stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.stderr.push(chunk));

    let timedOut = false;
    let aborted = false;
    const kill = () => killGroup(child);
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, request.limits.timeoutMs);
    const onAbort = () => {
      aborted = true;
      kill();
    };
    request.signal?.addEventListener('abort', onAbort, { once: true });
    // Aborted while the mounts were opened: the listener above would never fire.
    if (request.signal?.aborted) onAbort();

    const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code, signal) => resolve({ code, signal }));
    });
    const extra = child.stdio as unknown as (Readable & Writable)[];
    const feed = (fd: number, data: string | Buffer) => {
      const stream = extra[fd];
      stream?.on('error', () => undefined);
      stream?.end(data, () => stream.destroy());
    };
    feed(BWRAP_FD.passwd, SANDBOX_PASSWD);
    feed(BWRAP_FD.group, SANDBOX_GROUP);
    if (seccomp) feed(BWRAP_FD.seccomp, seccomp);

    try {
      const { code, signal } = await closed;
      if (aborted) throw request.signal?.reason ?? new Error('aborted');
      return {
        exitCode: code,
        signal,
        stdout: output.stdout.text(),
        stderr: output.stderr.text(),
        omitted: { stdout: output.stdout.omitted, stderr: output.stderr.omitted },
        timedOut,
      };
    } catch (error) {
      if (error instanceof Error && 'code' in error && error.code === 'ENOENT') {
        throw new TroupeError(
          'sandbox_failed',
          `the sandbox could not start: ${options.tools.bwrap} not found`,
          { cause: error },
        );
      }
      throw error;
    } finally {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      kill();
    }
  }

  return { run };
}

/**
 * The workdir and its `.skills`, opened through the workdir API for bubblewrap to mount by descriptor
 * (`.skills` made a real directory first: `openSkillsRoot`). The caller closes both.
 */
async function openMounts(
  workdirPath: string,
): Promise<{ workdir: WorkdirDirectory; skills: WorkdirDirectory }> {
  let workdir: WorkdirDirectory;
  try {
    workdir = await openWorkdirDirectory(workdirPath, '.');
  } catch (error) {
    throw new TroupeError('sandbox_failed', 'the project workdir does not exist', { cause: error });
  }
  try {
    const skills = await openSkillsRoot(workdir, true);
    if (skills === undefined) throw new Error('no .skills directory');
    return { workdir, skills };
  } catch (error) {
    await workdir.close();
    throw new TroupeError(
      'sandbox_failed',
      `the sandbox could not start: .skills cannot be prepared (${toTroupeError(error).message})`,
      { cause: error },
    );
  }
}

/** SIGKILL to bubblewrap's process group; already gone is fine. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}
