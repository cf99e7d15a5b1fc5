import type { TroupeConfig } from '../config.js';
import type { CreateTroupeOptions, RunningServer, Troupe } from '../create-troupe.js';
import type { ProcessRole } from '../check-deployment.js';

/**
 * What every CLI command needs, in a leaf module: commands import it, and `run-cli.ts` imports the
 * commands, so neither the commands nor the composition root import `run-cli.ts` back.
 */
export interface CliDeps {
  loadConfig(): TroupeConfig;
  createTroupe(config: TroupeConfig, options?: CreateTroupeOptions): Promise<Troupe>;
  listen(troupe: Troupe): Promise<RunningServer>;
}

/** A command line that cannot be run as written: the CLI prints it with the usage, exit code 2. */
export class CliUsageError extends Error {}

/** Opens the configured storage for a one-shot command and always closes it. */
export async function withTroupe<T>(
  deps: CliDeps,
  role: ProcessRole,
  work: (troupe: Troupe) => Promise<T>,
): Promise<T> {
  const troupe = await deps.createTroupe(deps.loadConfig(), { role });
  try {
    return await work(troupe);
  } finally {
    await troupe.close();
  }
}
