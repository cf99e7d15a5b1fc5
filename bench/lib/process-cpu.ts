import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/** Fields 3.. of /proc/PID/stat (state, ppid, …): the command name (field 2) may hold spaces and ')'. */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** utime + stime (fields 14 and 15) in ms; clock ticks are 1/100 s (USER_HZ) on every Linux Node supports. */
function cpuOfFields(fields: string[]): number {
  return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
}

/** CPU time (user + system, ms) another process has used so far, from Linux's /proc; NaN without /proc or once it is gone. */
export function processCpuMs(pid: number): number {
  const fields = statFields(pid);
  return fields ? cpuOfFields(fields) : Number.NaN;
}

/**
 * CPU time (ms) of a process and its live direct children: a PostgreSQL postmaster and its backends, which
 * do the database's work. Children that already exited are not counted (their time is in the parent's
 * cutime only once reaped), so measure across a stretch where the connection pools stay open.
 */
export function processTreeCpuMs(pid: number): number {
  let total = processCpuMs(pid);
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    const fields = statFields(entry);
    if (fields && Number(fields[1]) === pid) total += cpuOfFields(fields);
  }
  return total;
}
