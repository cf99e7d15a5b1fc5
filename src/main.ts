/**
 * The `troupe` entry (`npm start`, `troupe …`): a thin shell over the composition root in
 * `create-troupe.ts`, so the CLI can depend on the root without the root depending on the CLI.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli } from './cli/run-cli.js';
import { loadConfig } from './config.js';
import { createTroupe, listen } from './create-troupe.js';

/** The CLI entry (`troupe …`, `npm start`); resolves with an exit code, or undefined while serving. */
export function runMain(argv: string[]): Promise<number | undefined> {
  return runCli(argv, { loadConfig, createTroupe, listen });
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (invokedDirectly) {
  const exitCode = await runMain(process.argv.slice(2));
  if (exitCode !== undefined) process.exit(exitCode);
}
