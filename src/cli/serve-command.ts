import { seedDemo } from '../runtime/seed-demo.js';
import type { ProcessRole } from '../main.js';
import type { CliDeps } from './run-cli.js';
import { issueStartupToken } from './startup-token.js';

export interface ServeOptions {
  role: ProcessRole;
  port: string | undefined;
  host: string | undefined;
  demo: boolean;
}

export async function serveCommand(deps: CliDeps, options: ServeOptions): Promise<void> {
  const config = deps.loadConfig();
  if (options.port !== undefined) config.port = Number(options.port);
  if (options.host !== undefined) config.host = options.host;
  const troupe = await deps.createTroupe(config, { role: options.role });
  const seeded = options.demo ? await seedDemo(troupe.storage) : undefined;
  const server = await deps.listen(troupe);
  console.log(`Troupe is serving on ${server.url} (role: ${options.role}, data: ${config.dataDir})`);
  console.log(`  console: ${server.url}/`);
  console.log(`  API:     ${server.url}/api  (OpenAPI: ${server.url}/api/openapi.json)`);
  if (seeded?.user) {
    const token = await issueStartupToken(troupe, seeded.user);
    if (seeded.seeded) console.log(`Seeded the demo user "${seeded.user.name}" (admin) and agents assistant, researcher, summarizer, analyst.`);
    console.log(`Token for "${seeded.user.name}" (shown once; a restart issues a new one): ${token}`);
    console.log(`Try:\n  curl -s -H "Authorization: Bearer ${token}" ${server.url}/api/agent`);
  }
  const shutdown = (signal: string): void => {
    console.log(`\n${signal}: stopping; runs in flight are handed back and resume on the next start.`);
    void server
      .close()
      .then(() => troupe.close())
      .then(() => process.exit(0));
  };
  process.once('SIGINT', () => shutdown('SIGINT'));
  process.once('SIGTERM', () => shutdown('SIGTERM'));
}
