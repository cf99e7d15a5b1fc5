import type { TroupeConfig } from './config.js';
import { TroupeError } from './core/errors.js';

export type ProcessRole = 'api' | 'worker' | 'all';

/**
 * What a `troupe serve --role ROLE` process with this configuration is refused for, or warned about.
 * Throws `config_invalid` for combinations that cannot work; returns warnings for those that only work
 * with a single process. One-shot CLI commands do not call it: they open the store briefly with role
 * `api`, which is fine on SQLite too.
 */
export function checkDeployment(config: TroupeConfig, role: ProcessRole): { warnings: string[] } {
  refuseRedisWithoutDatabase(config);
  if (role !== 'all' && !config.databaseUrl) {
    throw new TroupeError(
      'config_invalid',
      `--role ${role} splits Troupe over several processes, which needs TROUPE_DATABASE_URL (PostgreSQL) and TROUPE_REDIS_URL; the embedded SQLite default runs as one process: use --role all.`,
    );
  }
  const warnings: string[] = [];
  if (config.databaseUrl && !config.redisUrl) {
    const base =
      'TROUPE_DATABASE_URL is set without TROUPE_REDIS_URL: this process uses an in-memory event bus and run queue, so live events, cancel signals and queued runs do not reach other processes. That is fine for a single process; multi-process deployments need TROUPE_REDIS_URL.';
    const byRole: Record<ProcessRole, string> = {
      all: '',
      api: " With --role api, runs started here wait until a worker's lease reconciler finds them pending (after 2 x TROUPE_LEASE_MS), and SSE clients here see their events only through the periodic storage re-check.",
      worker:
        ' With --role worker, this process only finds runs through its lease reconciler (pending for 2 x TROUPE_LEASE_MS), and cancel signals from API processes arrive only through the lease renewal check.',
    };
    warnings.push(base + byRole[role]);
  }
  return { warnings };
}

/** Redis only makes sense between processes, and processes can only share PostgreSQL, never the SQLite file. */
export function refuseRedisWithoutDatabase(config: TroupeConfig): void {
  if (config.redisUrl && !config.databaseUrl) {
    throw new TroupeError(
      'config_invalid',
      'TROUPE_REDIS_URL is set without TROUPE_DATABASE_URL: processes that share Redis must share a PostgreSQL database too (the embedded SQLite file belongs to one process). Set TROUPE_DATABASE_URL, or unset TROUPE_REDIS_URL for the embedded default.',
    );
  }
}
