import { SKILLS_DIR } from '../../skills/project-skills.js';
import type { HostLayout } from './host-layout.js';
import type { SandboxTools } from './locate-sandbox-tools.js';
import { SANDBOX_USER_ID, SANDBOX_WORKDIR, type SandboxLimits } from './sandbox.js';

/**
 * `mapped` (Troupe runs as root): the runner writes the user namespace's uid map itself, so commands run as
 * a dedicated unprivileged host uid. That matters: the kernel never enforces RLIMIT_NPROC for host root,
 * and bubblewrap's own mapping would map the sandbox user to the caller, root. `user` (any other uid):
 * bubblewrap maps the sandbox user to the caller, whose process limit the kernel does enforce.
 */
export type SandboxMode = 'mapped' | 'user';

/** File descriptors the runner hands to bubblewrap (index in `spawn`'s stdio). */
export const BWRAP_FD = { block: 3, info: 4, passwd: 5, group: 6, seccomp: 7, skills: 8 } as const;

export interface BwrapPlan {
  mode: SandboxMode;
  tools: SandboxTools;
  layout: HostLayout;
  /** Host path (already resolved: no symlinks) of the workdir. */
  workdir: string;
  command: string;
  network: boolean;
  limits: SandboxLimits;
  seccomp: boolean;
}

/** Capabilities a command keeps inside its user namespace: write and chmod the workdir's files owned by root. */
const KEPT_CAPS = ['dac_override', 'fowner'];

/** The whole argv after the bwrap binary. Pure, so the isolation can be reviewed (and tested) as data. */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const { mode, limits, layout } = plan;
  const args: string[] = ['--unshare-user'];
  if (mode === 'mapped') {
    args.push('--userns-block-fd', String(BWRAP_FD.block), '--info-fd', String(BWRAP_FD.info));
  } else {
    args.push('--uid', String(SANDBOX_USER_ID), '--gid', String(SANDBOX_USER_ID));
  }
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
  args.push('--bind', plan.workdir, SANDBOX_WORKDIR, '--chdir', SANDBOX_WORKDIR);
  // The workdir's `.skills`, mounted read-only from the descriptor the runner opened without following links
  // (`openSkillsDirectory`), never by host path; bubblewrap checks it mounted that very directory and closes
  // the descriptor before the command starts.
  args.push('--ro-bind-fd', String(BWRAP_FD.skills), `${SANDBOX_WORKDIR}/${SKILLS_DIR}`);
  args.push('--remount-ro', '/dev', '--remount-ro', '/');
  if (plan.seccomp) args.push('--seccomp', String(BWRAP_FD.seccomp));

  const limited = [
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
  if (mode === 'user') return [...args, '--cap-drop', 'ALL', '--', ...limited];
  // Namespace root only long enough for setpriv to become the sandbox user and drop everything else.
  const caps = KEPT_CAPS.map((cap) => `+${cap}`).join(',');
  args.push('--cap-drop', 'ALL');
  for (const cap of ['CAP_SETUID', 'CAP_SETGID', 'CAP_SETPCAP', 'CAP_DAC_OVERRIDE', 'CAP_FOWNER'])
    args.push('--cap-add', cap);
  return [
    ...args,
    '--',
    plan.tools.setpriv,
    `--reuid=${SANDBOX_USER_ID}`,
    `--regid=${SANDBOX_USER_ID}`,
    '--clear-groups',
    `--inh-caps=-all,${caps}`,
    `--ambient-caps=-all,${caps}`,
    `--bounding-set=-all,${caps}`,
    '--',
    ...limited,
  ];
}

/** The uid/gid map of a `mapped` sandbox: namespace root is host root (only bubblewrap runs as it). */
export function sandboxIdMap(sandboxUid: number): string {
  return `0 0 1\n${SANDBOX_USER_ID} ${sandboxUid} 1\n`;
}

export const SANDBOX_PASSWD = `root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:${SANDBOX_USER_ID}:${SANDBOX_USER_ID}:sandbox:/tmp:/bin/bash\n`;
export const SANDBOX_GROUP = `root:x:0:\nsandbox:x:${SANDBOX_USER_ID}:\n`;
