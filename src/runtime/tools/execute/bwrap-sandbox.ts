import { spawn, type ChildProcess } from 'node:child_process';
import { realpath, writeFile } from 'node:fs/promises';
import type { Readable, Writable } from 'node:stream';
import { TroupeError } from '../../../core/errors.js';
import {
  BWRAP_FD,
  bwrapArgs,
  SANDBOX_GROUP,
  SANDBOX_PASSWD,
  sandboxIdMap,
  type SandboxMode,
} from './bwrap-args.js';
import { createCappedOutput } from './capped-output.js';
import { readHostLayout, type HostLayout } from './host-layout.js';
import type { SandboxTools } from './locate-sandbox-tools.js';
import { openSkillsDirectory } from './open-skills-directory.js';
import type { Sandbox, SandboxRequest, SandboxResult } from './sandbox.js';
import { userNamespaceSeccompFilter } from './seccomp-filter.js';

export interface BwrapSandboxOptions {
  tools: SandboxTools;
  /** Host uid/gid of sandboxed processes in `mapped` mode. */
  sandboxUid: number;
  /** Default: `mapped` when this process runs as root, else `user`. */
  mode?: SandboxMode;
  layout?: HostLayout;
}

export function defaultSandboxMode(): SandboxMode {
  return process.getuid?.() === 0 ? 'mapped' : 'user';
}

/** Reads bubblewrap's `--info-fd` JSON (it carries the pid of the namespace's first process). */
function readInfo(stream: Readable): Promise<{ 'child-pid': number }> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8');
      try {
        const info = JSON.parse(text) as { 'child-pid'?: unknown };
        if (typeof info['child-pid'] !== 'number') throw new Error('no child-pid');
        stream.off('data', onData);
        resolve({ 'child-pid': info['child-pid'] });
      } catch {
        // Not complete yet.
      }
    };
    stream.on('data', onData);
    stream.once('close', () => reject(new Error('bubblewrap exited before its user namespace was set up')));
  });
}

/** bubblewrap's sandbox (README "Sandboxed `execute`"): every command gets fresh namespaces and limits. */
export function createBwrapSandbox(options: BwrapSandboxOptions): Sandbox {
  const mode = options.mode ?? defaultSandboxMode();
  const layout = options.layout ?? readHostLayout();
  const seccomp = userNamespaceSeccompFilter();

  async function run(request: SandboxRequest): Promise<SandboxResult> {
    request.signal?.throwIfAborted();
    const workdir = await realpath(request.workdir).catch((error: unknown) => {
      throw new TroupeError('sandbox_failed', 'the project workdir does not exist', { cause: error });
    });
    const args = bwrapArgs({
      mode,
      tools: options.tools,
      layout,
      workdir,
      command: request.command,
      network: request.network,
      limits: request.limits,
      seccomp: seccomp !== undefined,
    });
    const mapped = mode === 'mapped';
    const skills = await openSkillsDirectory(workdir);
    let child: ChildProcess;
    try {
      child = spawn(options.tools.bwrap, args, {
        stdio: [
          'ignore',
          'pipe',
          'pipe',
          mapped ? 'pipe' : 'ignore',
          mapped ? 'pipe' : 'ignore',
          'pipe',
          'pipe',
          seccomp ? 'pipe' : 'ignore',
          skills.fd,
        ],
        // Its own process group, so one kill reaches bubblewrap and the namespace's init (whose death ends the
        // whole pid namespace); the command itself runs in a new session inside.
        detached: true,
        env: { PATH: '/usr/bin:/bin' },
      });
    } finally {
      // bubblewrap holds its own copy once spawned. Not awaited: a spawn error is emitted on the next tick,
      // before the listeners below would be attached.
      void skills.close().catch(() => undefined);
    }
    const output = createCappedOutput(request.limits.outputBytes);
    child.stdout?.on('data', (chunk: Buffer) => output.stdout.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => output.stderr.push(chunk));

    let timedOut = false;
    let aborted = false;
    let setupError: Error | undefined;
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
    // Aborted while the workdir was resolved: the listener above would never fire.
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
    if (mapped) {
      mapUser(extra, options.sandboxUid).catch((error: unknown) => {
        setupError = error instanceof Error ? error : new Error(String(error));
        kill();
      });
    }

    try {
      const { code, signal } = await closed;
      if (aborted) throw request.signal?.reason ?? new Error('aborted');
      if (setupError && !timedOut) {
        throw new TroupeError('sandbox_failed', `the sandbox could not start: ${setupError.message}`, {
          cause: setupError,
        });
      }
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
 * The user namespace handshake of `mapped` mode: bubblewrap reports its first child's pid, we map the
 * sandbox user to the dedicated host uid, then let it continue.
 */
async function mapUser(extra: (Readable & Writable)[], sandboxUid: number): Promise<void> {
  const info = extra[BWRAP_FD.info];
  const block = extra[BWRAP_FD.block];
  if (!info || !block) throw new Error('bubblewrap handshake pipes are missing');
  info.on('error', () => undefined);
  block.on('error', () => undefined);
  try {
    const { 'child-pid': pid } = await readInfo(info);
    const map = sandboxIdMap(sandboxUid);
    // One write each: the kernel accepts a map only whole, in a single write.
    await writeFile(`/proc/${pid}/uid_map`, map);
    await writeFile(`/proc/${pid}/gid_map`, map);
    await new Promise<void>((resolve) => block.end('x', () => resolve()));
  } finally {
    info.destroy();
    block.destroy();
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
