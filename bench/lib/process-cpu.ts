import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system, ms) another process has used so far, from Linux's /proc/PID/stat (fields 14 and
 * 15, in clock ticks of 1/100 s, which is USER_HZ on every Linux architecture Node supports); NaN where there
 * is no /proc or the process is gone.
 */
export function processCpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses; the fields after its last ')' are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND) * 1000;
  } catch {
    return Number.NaN;
  }
}
