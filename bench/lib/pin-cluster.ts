import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Which CPUs each role of a scale-out cluster may run on (`taskset -c` lists), from TROUPE_BENCH_TASKSET. */
export type CpuPinning = Partial<Record<'api' | 'workers' | 'postgres' | 'redis', string>>;

/**
 * `TROUPE_BENCH_TASKSET=api:0,postgres:0,workers:1,redis:1` pins each role to its CPUs (BENCHMARKS.md,
 * "Capacity"): the capacity model's check on one machine. Unset, nothing is pinned.
 */
export function pinningFromEnv(value = process.env.TROUPE_BENCH_TASKSET): CpuPinning | undefined {
  if (!value) return undefined;
  const pinning: CpuPinning = {};
  for (const part of value.split(',')) {
    const [role, cpus] = part.split(':');
    if ((role === 'api' || role === 'workers' || role === 'postgres' || role === 'redis') && cpus)
      pinning[role] = pinning[role] ? `${pinning[role]},${cpus}` : cpus;
    else
      throw new Error(
        `TROUPE_BENCH_TASKSET: cannot read "${part}" (role:cpus, roles api, workers, postgres, redis)`,
      );
  }
  return pinning;
}

function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * Pins a process, all its threads and its live children; processes it forks later inherit the mask (a
 * PostgreSQL postmaster's backends).
 */
export function pinProcess(pid: number | undefined, cpus: string | undefined): void {
  if (pid === undefined || cpus === undefined) return;
  for (const target of [pid, ...childrenOf(pid)])
    execFileSync('taskset', ['-a', '-p', '-c', cpus, String(target)], { stdio: 'ignore' });
}
