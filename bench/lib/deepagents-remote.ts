import type { CpuBreakdown } from './cpu-profile.js';
import { readLines, spawnBenchScript, stopChild } from './child.js';
import type { CheckpointerKind } from './deepagents.js';
import type { SqlSummary } from './sql-summary.js';

export type DeepAgentsCommand =
  | { op: 'once'; side: CheckpointerKind; kind: 'task' | 'plain' }
  | { op: 'profile'; side: CheckpointerKind; runs: number }
  | { op: 'close' };

/** The deepagents contenders, played in `bench/deepagents-process.ts` (see there why a process of their own). */
export interface DeepAgentsProcess {
  version: string;
  /** One turn on a fresh thread, timed inside that process. */
  once(side: CheckpointerKind, kind: 'task' | 'plain'): Promise<{ wall: number; cpu: number }>;
  /** `runs` dispatches under the CPU profiler and the SQLite probe. */
  profile(side: CheckpointerKind, runs: number): Promise<{ breakdown: CpuBreakdown; sql: SqlSummary }>;
  close(): Promise<void>;
}

export async function startDeepAgentsProcess(sqlitePath: string): Promise<DeepAgentsProcess> {
  const child = spawnBenchScript('deepagents-process.ts', [sqlitePath], ['--expose-gc']);
  const lines = readLines(child);
  const isJson = (line: string) => line.startsWith('{');
  const ready = JSON.parse(await lines.waitFor(isJson, 120_000)) as { version: string };
  // One command at a time: the suite awaits each answer before it sends the next.
  async function ask<T>(command: DeepAgentsCommand): Promise<T> {
    const next = lines.waitForNext(isJson, 600_000);
    child.stdin?.write(`${JSON.stringify(command)}\n`);
    return JSON.parse(await next) as T;
  }
  return {
    version: ready.version,
    once: (side, kind) => ask({ op: 'once', side, kind }),
    profile: (side, runs) => ask({ op: 'profile', side, runs }),
    async close() {
      await ask({ op: 'close' }).catch(() => undefined);
      await stopChild(child);
    },
  };
}
