import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { eventually } from '../eventually.js';
import { freePort } from './free-port.js';
import { isRunning, pidFromFile, stopPidFile } from './stop-pid.js';
import type { Teardown } from './teardown.js';

export interface ThrowawayRedis {
  url: string;
  version: string;
  /** The server's pid (PostgreSQL: the postmaster, whose children are the backends), for CPU accounting. */
  pid: number;
  settings: string[];
  /**
   * Stops the server: `keepData` saves the dataset first (SHUTDOWN SAVE) so `start` loads it back, as a
   * restart of a Redis with persistence does; without it the data is gone, as with a Redis without persistence.
   */
  stop(options: { keepData: boolean }): Promise<void>;
  /** Starts it again on the same port and directory; resolves once it answers PING. */
  start(): Promise<void>;
}

async function ping(url: string): Promise<true> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return true;
  } finally {
    client.disconnect();
  }
}

/**
 * A throwaway redis-server in `runDir/redis` on a free loopback port, daemonised with a pidfile and no
 * persistence, as `.ci/run` starts it. Stopped by the pid in its pidfile (SIGTERM).
 */
export async function startThrowawayRedis(
  redisServer: string,
  runDir: string,
  teardown: Teardown,
): Promise<ThrowawayRedis> {
  const dir = path.join(runDir, 'redis');
  mkdirSync(dir);
  const pidFile = path.join(dir, 'redis.pid');
  const log = path.join(dir, 'redis.log');
  const port = await freePort();
  const settings = ['--save ""', '--appendonly no'];
  teardown.add('Redis', () => stopPidFile(pidFile, 'SIGTERM'));
  const url = `redis://127.0.0.1:${port}`;
  const launch = async (): Promise<number> => {
    execFileSync(
      redisServer,
      [
        '--daemonize',
        'yes',
        '--bind',
        '127.0.0.1',
        '--port',
        String(port),
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--pidfile',
        pidFile,
        '--logfile',
        log,
      ],
      { stdio: 'ignore' },
    );
    try {
      await eventually('Redis to answer PING', 10_000, () => ping(url));
      // --daemonize returns before the pidfile is written; the stop step needs it.
      await eventually('the Redis pidfile', 5_000, () =>
        Promise.resolve(
          existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '' ? true : undefined,
        ),
      );
    } catch (error) {
      const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-4000) : '(no log)';
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tail}`);
    }
    const pid = pidFromFile(pidFile);
    if (pid === undefined) throw new Error('the server wrote no pidfile');
    return pid;
  };
  const pid = await launch();
  // "Redis server v=7.0.15 sha=… malloc=…" → "Redis 7.0.15".
  const banner = execFileSync(redisServer, ['--version'], { encoding: 'utf8' });
  const version = `Redis ${/v=(\S+)/.exec(banner)?.[1] ?? banner.trim()}`;
  const server: ThrowawayRedis = {
    url,
    version,
    settings,
    pid,
    async stop({ keepData }) {
      const client = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined);
      // The server closes the connection as it exits: the command's own answer is that error.
      await client.call('SHUTDOWN', keepData ? 'SAVE' : 'NOSAVE').catch(() => undefined);
      client.disconnect();
      // Redis removes its pidfile before it has exited: wait for the process itself, so the port is free.
      await eventually('Redis to exit', 10_000, () =>
        Promise.resolve(isRunning(server.pid) ? undefined : true),
      );
      if (!keepData) rmSync(path.join(dir, 'dump.rdb'), { force: true });
    },
    async start() {
      server.pid = await launch();
    },
  };
  return server;
}
