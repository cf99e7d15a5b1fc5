import { SKILLS_DIR } from '../workdir/open-skills-root.js';
import type { HostLayout } from './host-layout.js';
import type { SandboxTools } from './locate-sandbox-tools.js';
import { SANDBOX_USER_ID, SANDBOX_WORKDIR, type SandboxLimits } from './sandbox.js';

/** File descriptors the runner hands to bubblewrap (index in `spawn`'s stdio). */
export const BWRAP_FD = { passwd: 3, group: 4, seccomp: 5, workdir: 6, skills: 7 } as const;

export interface BwrapPlan {
  tools: SandboxTools;
  layout: HostLayout;
  command: string;
  network: boolean;
  limits: SandboxLimits;
  seccomp: boolean;
}

/** The whole argv after the bwrap binary. Pure, so the isolation can be reviewed (and tested) as data. */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const { limits, layout } = plan;
  const args: string[] = [
    '--unshare-user',
    '--uid',
    String(SANDBOX_USER_ID),
    '--gid',
    String(SANDBOX_USER_ID),
  ];
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (!plan.network) args.push('--unshare-net');
  args.push('--hostname', 'sandbox', '--die-with-parent', '--new-session');
  args.push('--clearenv');
  const env: Record<string, string> = {
    PATH: '/usr/local/bin:/usr/bin:/bin',
    HOME: '/tmp',
    TMPDIR: '/tmp',
    USER: 'sandbox',
    LOGNAME: 'sandbox',
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
  };
  for (const [name, value] of Object.entries(env)) args.push('--setenv', name, value);

  args.push('--ro-bind', '/usr', '/usr');
  for (const link of layout.links) args.push('--symlink', link.target, link.path);
  for (const dir of layout.dirs) args.push('--ro-bind', dir, dir);
  args.push('--perms', '0755', '--dir', '/etc');
  for (const entry of layout.etc) args.push('--ro-bind-try', entry, entry);
  args.push('--perms', '0644', '--ro-bind-data', String(BWRAP_FD.passwd), '/etc/passwd');
  args.push('--perms', '0644', '--ro-bind-data', String(BWRAP_FD.group), '/etc/group');
  args.push('--proc', '/proc', '--dev', '/dev');
  // Every tmpfs is memory: each writable one has a size, the rest (root, /dev) become read-only below.
  args.push('--size', String(limits.tmpBytes), '--perms', '1777', '--tmpfs', '/dev/shm');
  args.push('--size', String(limits.tmpBytes), '--perms', '1777', '--tmpfs', '/tmp');
  // The workdir and its `.skills` (read-only) are mounted from descriptors the runner opened through the
  // workdir API, never by host path: bubblewrap checks it mounted those very directories and closes the
  // descriptors before the command starts, and no host path is on this command line (which every process in
  // the sandbox can read as /proc/1/cmdline).
  args.push('--bind-fd', String(BWRAP_FD.workdir), SANDBOX_WORKDIR, '--chdir', SANDBOX_WORKDIR);
  args.push('--ro-bind-fd', String(BWRAP_FD.skills), `${SANDBOX_WORKDIR}/${SKILLS_DIR}`);
  args.push('--remount-ro', '/dev', '--remount-ro', '/');
  if (plan.seccomp) args.push('--seccomp', String(BWRAP_FD.seccomp));

  return [
    ...args,
    // No capability at all, in the namespace or over its files: bubblewrap drops them before the command.
    '--cap-drop',
    'ALL',
    '--',
    plan.tools.prlimit,
    `--nproc=${limits.maxProcesses}`,
    `--as=${limits.memoryBytes}`,
    `--cpu=${limits.cpuSeconds}`,
    `--fsize=${limits.fileBytes}`,
    '--core=0',
    '--',
    '/bin/bash',
    '-c',
    plan.command,
  ];
}

export const SANDBOX_PASSWD = `root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:${SANDBOX_USER_ID}:${SANDBOX_USER_ID}:sandbox:/tmp:/bin/bash\n`;
export const SANDBOX_GROUP = `root:x:0:\nsandbox:x:${SANDBOX_USER_ID}:\n`;
