import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { eventually } from '../../test/helpers/eventually.js';
import { freePort } from './free-port.js';
import { pidFromFile, stopPidFile } from './stop-pid.js';
import type { Teardown } from './teardown.js';

export interface ThrowawayRedis {
  url: string;
  version: string;
  /** The server's pid (PostgreSQL: the postmaster, whose children are the backends), for CPU accounting. */
  pid: number;
  settings: string[];
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
  const url = `redis://127.0.0.1:${port}`;
  try {
    await eventually('Redis to answer PING', 10_000, () => ping(url));
    // --daemonize returns before the pidfile is written; the stop step needs it.
    await eventually('the Redis pidfile', 5_000, () =>
      Promise.resolve(existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '' ? true : undefined),
    );
  } catch (error) {
    const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-4000) : '(no log)';
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${tail}`);
  }
  // "Redis server v=7.0.15 sha=… malloc=…" → "Redis 7.0.15".
  const banner = execFileSync(redisServer, ['--version'], { encoding: 'utf8' });
  const version = `Redis ${/v=(\S+)/.exec(banner)?.[1] ?? banner.trim()}`;
  const pid = pidFromFile(pidFile);
  if (pid === undefined) throw new Error('the server wrote no pidfile');
  return { url, version, settings, pid };
}
