import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, chownSync, closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { eventually } from '../eventually.js';
import { freePort } from './free-port.js';
import { pidFromFile, stopPidFile } from './stop-pid.js';
import type { Teardown } from './teardown.js';

export interface ThrowawayPostgres {
  url: string;
  version: string;
  /** The server's pid (PostgreSQL: the postmaster, whose children are the backends), for CPU accounting. */
  pid: number;
  /** The non-durable settings the cluster runs with, for the report. */
  settings: string[];
  /**
   * `pg_ctl restart -m fast`: every backend is terminated (57P01), the server is down while it restarts, then
   * answers again on the same port. Resolves once it accepts connections; `pid` is the new postmaster's.
   */
  restartFast(): Promise<void>;
  /** `pg_ctl stop -m fast`: the server is down until `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>;
}

/** Non-durable on purpose, as in `.ci/run`: the cluster lives for one bench run and its data is thrown away. */
const SETTINGS = [
  'fsync=off',
  'synchronous_commit=off',
  'full_page_writes=off',
  'max_connections=300',
  // Lets the scale-out bench count statements per dispatch (bench/lib/round-trip-probe.ts); costs nothing unread.
  'shared_preload_libraries=pg_stat_statements',
];

const isRoot = (): boolean => process.getuid?.() === 0;

/** initdb refuses to run as root: as root, PostgreSQL binaries run as the postgres user (`runuser`), like `.ci/run`. */
function asPostgres(binary: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args];
}

/**
 * Runs a PostgreSQL binary to its end without blocking the event loop (a test's clients keep running while the
 * server restarts). Output goes to a log file, never a pipe: the postmaster pg_ctl leaves behind would hold it.
 */
async function run(binary: string, args: string[], log: string): Promise<void> {
  const [command, argv] = asPostgres(binary, args);
  const fd = openSync(log, 'a');
  try {
    const child = spawn(command, argv, { stdio: ['ignore', fd, fd] });
    const [code] = (await once(child, 'exit')) as [number | null];
    if (code !== 0) throw new Error(`exit code ${code}`);
  } catch (error) {
    throw new Error(
      `${path.basename(binary)} failed (${String(error)}):\n${readFileSync(log, 'utf8').slice(-4000)}`,
    );
  } finally {
    closeSync(fd);
  }
}

function answers(url: string): Promise<boolean> {
  return eventually('PostgreSQL to answer', 10_000, async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query('select 1');
      return true;
    } finally {
      await client.end();
    }
  });
}

/**
 * A throwaway PostgreSQL cluster in `runDir/postgres` on a free loopback port, started the way `.ci/run`
 * starts it (initdb with trust auth and C locale, pg_ctl with a socket dir of its own). The stop step (SIGINT to
 * the postmaster: fast shutdown) is registered before the start, so a start that fails halfway is still stopped.
 */
export async function startThrowawayPostgres(
  pgBin: string,
  runDir: string,
  teardown: Teardown,
): Promise<ThrowawayPostgres> {
  const dir = path.join(runDir, 'postgres');
  mkdirSync(dir);
  if (isRoot()) {
    // mkdtemp made runDir 0700 for root; the postgres user only needs to pass through it.
    chmodSync(runDir, 0o711);
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  await run(
    path.join(pgBin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    path.join(dir, 'initdb.log'),
  );
  teardown.add('PostgreSQL', () => stopPidFile(path.join(data, 'postmaster.pid'), 'SIGINT'));
  const port = await freePort();
  const options = [
    '-c listen_addresses=127.0.0.1',
    `-p ${port}`,
    `-k ${dir}`,
    ...SETTINGS.map((setting) => `-c ${setting}`),
  ];
  await run(
    path.join(pgBin, 'pg_ctl'),
    ['-D', data, '-l', log, '-w', '-t', '60', '-o', options.join(' '), 'start'],
    path.join(dir, 'pg_ctl.log'),
  );
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await answers(url);
  // "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)" → "PostgreSQL 15.18".
  const banner = execFileSync(path.join(pgBin, 'postgres'), ['--version'], { encoding: 'utf8' });
  const version = `PostgreSQL ${/\d+(\.\d+)+/.exec(banner)?.[0] ?? banner.trim()}`;
  const pidFile = path.join(data, 'postmaster.pid');
  const pgCtl = path.join(pgBin, 'pg_ctl');
  const ctlLog = path.join(dir, 'pg_ctl.log');
  const pid = pidFromFile(pidFile);
  if (pid === undefined) throw new Error('the server wrote no pidfile');
  const server: ThrowawayPostgres = {
    url,
    version,
    settings: SETTINGS,
    pid,
    async stop() {
      await run(pgCtl, ['-D', data, '-w', '-t', '60', '-m', 'fast', 'stop'], ctlLog);
    },
    async start() {
      await run(pgCtl, ['-D', data, '-l', log, '-w', '-t', '60', '-o', options.join(' '), 'start'], ctlLog);
      await answers(url);
      server.pid = pidFromFile(pidFile) ?? server.pid;
    },
    async restartFast() {
      await run(
        path.join(pgBin, 'pg_ctl'),
        ['-D', data, '-l', log, '-w', '-t', '60', '-m', 'fast', 'restart'],
        path.join(dir, 'pg_ctl.log'),
      );
      await answers(url);
      server.pid = pidFromFile(pidFile) ?? server.pid;
    },
  };
  return server;
}
