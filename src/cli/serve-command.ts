import { isTroupeError } from '../core/errors.js';
import type { User } from '../core/records/user.js';
import { seedDemo } from '../runtime/seed-demo.js';
import type { Troupe } from '../create-troupe.js';
import { checkDeployment, type ProcessRole } from '../check-deployment.js';
import type { CliDeps } from './cli-support.js';
import { issueStartupToken } from './startup-token.js';

export interface ServeOptions {
  role: ProcessRole;
  port: string | undefined;
  host: string | undefined;
  demo: boolean;
}

/**
 * Seeds the demo data. API processes of one deployment may start together against a fresh PostgreSQL
 * database: the loser of the race sees the winner's demo user on its second try.
 */
async function seedDemoOnce(troupe: Troupe): Promise<{ user: User | undefined; seeded: boolean }> {
  try {
    return await seedDemo(troupe.storage);
  } catch (error) {
    if (!isTroupeError(error, 'user_exists')) throw error;
    return seedDemo(troupe.storage);
  }
}

/**
 * `troupe serve`. Roles: `all` (the embedded default: HTTP + executor in one process), `api` (HTTP only)
 * and `worker` (executes runs, consumes the queue, reconciles leases). A worker prints no token and opens
 * no port unless `--port` is given, in which case it serves the same app (for `/api/health` probes).
 */
export async function serveCommand(deps: CliDeps, options: ServeOptions): Promise<void> {
  const config = deps.loadConfig();
  if (options.port !== undefined) config.port = Number(options.port);
  if (options.host !== undefined) config.host = options.host;
  const { warnings } = checkDeployment(config, options.role);
  for (const warning of warnings) console.warn(`troupe: warning: ${warning}`);
  const troupe = await deps.createTroupe(config, { role: options.role });
  const storeLabel = config.databaseUrl ? 'PostgreSQL' : config.dataDir;
  const busLabel = config.redisUrl ? 'Redis' : 'in-process';

  if (options.role === 'worker') {
    const server = options.port !== undefined ? await deps.listen(troupe) : undefined;
    console.log(
      `Troupe worker ${process.pid} is running (data: ${storeLabel}, queue and events: ${busLabel}, concurrency: ${config.workerConcurrency})`,
    );
    if (server) console.log(`  health: ${server.url}/api/health`);
    registerShutdown(troupe, server);
    return;
  }

  const seeded = options.demo ? await seedDemoOnce(troupe) : undefined;
  const server = await deps.listen(troupe);
  const scaleOut = config.databaseUrl || config.redisUrl ? `, events: ${busLabel}` : '';
  console.log(`Troupe is serving on ${server.url} (role: ${options.role}, data: ${storeLabel}${scaleOut})`);
  console.log(`  console: ${server.url}/`);
  console.log(`  API:     ${server.url}/api  (OpenAPI: ${server.url}/api/openapi.json)`);
  if (seeded?.user) {
    const token = await issueStartupToken(troupe, seeded.user);
    if (seeded.seeded)
      console.log(
        `Seeded the demo user "${seeded.user.name}" (admin) and agents assistant, researcher, summarizer, analyst, builder.`,
      );
    console.log(`Token for "${seeded.user.name}" (shown once; a restart issues a new one): ${token}`);
    console.log(`Try:\n  curl -s -H "Authorization: Bearer ${token}" ${server.url}/api/agent`);
  }
  registerShutdown(troupe, server);
}

function registerShutdown(troupe: Troupe, server: { close(): Promise<void> } | undefined): void {
  const shutdown = (signal: string): void => {
    console.log(`\n${signal}: stopping; runs in flight are handed back and resume on the next start.`);
    void (server ? server.close() : Promise.resolve()).then(() => troupe.close()).then(() => process.exit(0));
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}
