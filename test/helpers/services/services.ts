import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Teardown } from './teardown.js';
import { startThrowawayPostgres, type ThrowawayPostgres } from './throwaway-postgres.js';
import { startThrowawayRedis, type ThrowawayRedis } from './throwaway-redis.js';

export interface ServiceBinaries {
  /** The newest `/usr/lib/postgresql/<version>/bin` holding initdb and pg_ctl (Debian's layout). */
  pgBin: string;
  redisServer: string;
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The PostgreSQL and Redis server binaries, or why the scale-out bench cannot run here. */
export function findServiceBinaries(): { binaries: ServiceBinaries } | { missing: string } {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) =>
          ['initdb', 'pg_ctl', 'postgres'].every((binary) =>
            existsSync(path.join(root, version, 'bin', binary)),
          ),
        )
        .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }))
    : [];
  const newest = versions.at(-1);
  const redisServer = onPath('redis-server');
  const missing = [
    ...(newest === undefined
      ? ['PostgreSQL server binaries (initdb, pg_ctl, postgres under /usr/lib/postgresql/*/bin)']
      : []),
    ...(redisServer === undefined ? ['redis-server (not on PATH)'] : []),
  ];
  if (newest === undefined || redisServer === undefined)
    return { missing: `not found: ${missing.join(', ')}` };
  return { binaries: { pgBin: path.join(root, newest, 'bin'), redisServer } };
}

export interface Services {
  postgres: ThrowawayPostgres;
  redis: ThrowawayRedis;
  /** The run dir both live under (mkdtemp); removed by the teardown. */
  dir: string;
}

/**
 * A throwaway PostgreSQL cluster and redis-server on loopback, both under one temp dir and both stopped
 * (then the dir removed) by `teardown`, whatever happens after this call.
 */
export async function startServices(binaries: ServiceBinaries, teardown: Teardown): Promise<Services> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'troupe-bench-services-'));
  teardown.add('the services dir', () => Promise.resolve(rmSync(dir, { recursive: true, force: true })));
  const postgres = await startThrowawayPostgres(binaries.pgBin, dir, teardown);
  const redis = await startThrowawayRedis(binaries.redisServer, dir, teardown);
  return { postgres, redis, dir };
}
