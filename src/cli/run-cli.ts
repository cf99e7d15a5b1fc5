import { parseArgs } from 'node:util';
import { isTroupeError } from '../core/errors.js';
import { CliUsageError, type CliDeps } from './cli-support.js';
import type { ProcessRole } from '../check-deployment.js';
import { agentsCommand } from './agents-command.js';
import { demoCommand } from './demo-command.js';
import { KNOWLEDGE_USAGE, knowledgeCommand } from './knowledge-command.js';
import { runCommand } from './run-command.js';
import { serveCommand } from './serve-command.js';
import { skillsCommand } from './skills-command.js';
import { tokensCommand } from './tokens-command.js';
import { usersCommand } from './users-command.js';

export const USAGE = `Usage: troupe <command> [options]

Commands:
  serve [--role all|api|worker] [--port N] [--host H] [--no-demo]
                          Serve the API and console (embedded default: SQLite + in-process queue).
                          On the embedded default it seeds the demo data once and prints a fresh token.
  demo                    Seed the demo user and agents (if the database is empty) and print a token.
  run --agent SLUG [--user NAME] [--request-id ID] MESSAGE
                          Run one conversation turn in this process and stream it to stdout.
  agents check FILE [--json] [--timeout-ms N]
                          Build report of an agent definition (JSON or YAML, {name, slug?, config} or a config):
                          every dropped subagent spec or tool. Exit 0 clean, 1 something dropped, 2 unreadable.
  users list | users create NAME [--admin]
  tokens create --user NAME [--name LABEL] | tokens list --user NAME | tokens revoke --user NAME TOKEN_ID
  skills add DIR|FILE [--user NAME] [--visibility private|shared|public] [--replace]
                          Add a skill from a folder or a .zip/.tar.gz archive (user default: demo).
  skills list [--user NAME]
  ${KNOWLEDGE_USAGE}

Environment: TROUPE_DATA_DIR (./data), TROUPE_PORT (3000), TROUPE_HOST (127.0.0.1), TROUPE_SCENARIO_DIR,
TROUPE_DEFAULT_MODEL, OPENAI_API_KEY / OPENAI_BASE_URL, ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL,
TROUPE_OPENAI_COMPATIBLE_<NAME>_BASE_URL / _API_KEY. See README.md.`;

/** Runs one CLI command; resolves with an exit code, or undefined for a server that keeps running. */
export async function runCli(argv: string[], deps: CliDeps): Promise<number | undefined> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve': {
        const { values } = parseArgs({
          args: rest,
          options: {
            role: { type: 'string', default: 'all' },
            port: { type: 'string' },
            host: { type: 'string' },
            'no-demo': { type: 'boolean', default: false },
          },
        });
        const role = values.role as ProcessRole;
        if (!['all', 'api', 'worker'].includes(role))
          throw new CliUsageError(`--role must be all, api or worker`);
        await serveCommand(deps, { role, port: values.port, host: values.host, demo: !values['no-demo'] });
        return undefined;
      }
      case 'demo':
        return await demoCommand(deps);
      case 'run':
        return await runCommand(deps, rest);
      case 'agents':
        return await agentsCommand(deps, rest);
      case 'users':
        return await usersCommand(deps, rest);
      case 'tokens':
        return await tokensCommand(deps, rest);
      case 'skills':
        return await skillsCommand(deps, rest);
      case 'knowledge':
        return await knowledgeCommand(deps, rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        console.log(USAGE);
        return command === undefined ? 1 : 0;
      default:
        throw new CliUsageError(`Unknown command "${command}"`);
    }
  } catch (error) {
    if (error instanceof CliUsageError) {
      console.error(`troupe: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (isTroupeError(error)) {
      console.error(`troupe: ${error.message} (${error.code})`);
      return 1;
    }
    if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
      console.error(`troupe: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
}
