import { execFileSync } from 'node:child_process';
import os from 'node:os';

export interface MachineInfo {
  cpu_model: string;
  cores: number;
  memory_gib: number;
  os: string;
  node: string;
  date: string;
  git_commit: string | null;
  /** True when the work tree had uncommitted changes: the numbers then belong to commit + those changes. */
  git_dirty: boolean | null;
  /** 1/5/15-minute load averages when the run started: anything well above 0 means a shared, noisy machine. */
  load_average: number[];
}

function git(args: string[], cwd: string): string | null {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

/** Read-only facts about this machine and checkout (git is only read). */
export function machineInfo(repoDir: string): MachineInfo {
  const cpus = os.cpus();
  const status = git(['status', '--porcelain', '--untracked-files=no'], repoDir);
  return {
    cpu_model: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memory_gib: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    date: new Date().toISOString(),
    git_commit: git(['rev-parse', 'HEAD'], repoDir),
    git_dirty: status === null ? null : status !== '',
    load_average: os.loadavg().map((value) => Math.round(value * 100) / 100),
  };
}
