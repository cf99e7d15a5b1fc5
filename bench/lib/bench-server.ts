import type { ChildProcess } from 'node:child_process';
import { readLines, spawnBenchScript, type LineReader } from './child.js';

/** A Troupe server in a process of its own (`bench/suites/http-server.ts`), seeded with conversations. */
export interface BenchServer {
  child: ChildProcess;
  lines: LineReader;
  url: string;
  token: string;
  conversations: string[];
}

/**
 * Starts the server so its event loop is not the load generator's (or the browser driver's); `role` `all`
 * also executes runs (a one-step scripted echo), `api` leaves them pending.
 */
export async function startBenchServer(role: 'api' | 'all', conversations: number): Promise<BenchServer> {
  const child = spawnBenchScript('suites/http-server.ts', [
    '--role',
    role,
    '--conversations',
    String(conversations),
  ]);
  const lines = readLines(child);
  const ready = JSON.parse(await lines.waitFor((line) => line.startsWith('{"url"'), 120_000)) as Omit<
    BenchServer,
    'child' | 'lines'
  >;
  return { child, lines, ...ready };
}
