import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { parse as parseYaml } from 'yaml';
import { createMcpToolSource } from '../adapters/mcp/create-mcp-tool-source.js';
import { draftAgent } from '../core/draft-agent.js';
import type { AgentConfig } from '../core/records/agent.js';
import { agentConfigSchema } from '../runtime/agents/agent-config-schema.js';
import { computeBuildReport } from '../runtime/build-report/compute-build-report.js';
import { toValidationError } from '../core/to-validation-error.js';
import { INSTALL_SKILL_TOOL_NAME } from '../runtime/skills/install-skill-tool.js';
import { createWorkdirTools } from '../runtime/tools/workdir/create-workdir-tools.js';
import { executeReportEntries } from '../runtime/tools/execute/execute-support.js';
import { probeSandbox } from '../runtime/tools/execute/probe-sandbox.js';
import { HUMAN_TOOL_NAMES } from '../runtime/tools/human/create-human-tools.js';
import { formatBuildReport } from './format-build-report.js';
import { CliUsageError, type CliDeps } from './cli-support.js';

const DEFAULT_PROBE_TIMEOUT_MS = 5_000;

interface Definition {
  name: string;
  config: AgentConfig;
}

/** Exit code 2: the file cannot be read as an agent definition at all. */
class UnreadableInput extends Error {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function readDefinition(file: string): Promise<Definition> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UnreadableInput(
      `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  let parsed: unknown;
  try {
    // YAML is a superset of JSON, so one parser reads both.
    parsed = parseYaml(text);
  } catch (error) {
    throw new UnreadableInput(
      `${file} is neither JSON nor YAML: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!isObject(parsed))
    throw new UnreadableInput(`${file} must hold an object: an agent {name, slug?, config} or a config`);
  // An agent definition wraps its config; a bare config has no `config` key of its own.
  const isAgent = isObject(parsed.config);
  const result = agentConfigSchema.safeParse(isAgent ? parsed.config : parsed);
  if (!result.success)
    throw new UnreadableInput(toValidationError(result.error, isAgent ? 'config' : undefined).message);
  const label = isAgent && typeof parsed.name === 'string' ? parsed.name : file;
  const slug = isAgent && typeof parsed.slug === 'string' ? ` (${parsed.slug})` : '';
  return { name: `${label}${slug}`, config: result.data };
}

/**
 * `troupe agents check FILE [--json] [--timeout-ms N]`: the build report of an agent definition, offline.
 * Exit 0 when nothing is dropped (warnings allowed), 1 when something is, 2 when the file is unreadable.
 */
export async function agentsCommand(deps: Pick<CliDeps, 'loadConfig'>, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, 'timeout-ms': { type: 'string' } },
  });
  const [action, file, ...extra] = positionals;
  if (action !== 'check' || file === undefined || extra.length > 0)
    throw new CliUsageError('agents takes "check FILE"');
  const timeoutMs =
    values['timeout-ms'] === undefined ? DEFAULT_PROBE_TIMEOUT_MS : Number(values['timeout-ms']);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0)
    throw new CliUsageError('--timeout-ms must be a positive integer');

  let definition: Definition;
  try {
    definition = await readDefinition(file);
  } catch (error) {
    if (!(error instanceof UnreadableInput)) throw error;
    console.error(`troupe: ${error.message}`);
    return 2;
  }
  const { config } = definition;
  // The CLI runs on the operator's machine, so stdio servers may start whoever the draft's owner is.
  const mcp = createMcpToolSource({ allowStdio: () => true });
  try {
    const probe =
      (config.mcp_servers ?? []).length > 0
        ? await mcp.probe(draftAgent(config, 'usr_cli'), { timeoutMs })
        : { tool_names: [], unreachable: [], refused: [] };
    const settings = deps.loadConfig();
    // The sandbox of this machine: `execute` is in the catalogue only where it would be offered.
    const sandbox = await probeSandbox({
      bwrapPath: settings.execute.bwrapPath,
      sandboxUid: settings.execute.sandboxUid,
    });
    const report = computeBuildReport({
      config,
      catalogue: [
        ...createWorkdirTools().map((tool) => tool.name),
        ...(sandbox.available ? ['execute'] : []),
        INSTALL_SKILL_TOOL_NAME,
        ...HUMAN_TOOL_NAMES,
      ],
      probe,
      defaultModel: settings.defaultModel,
      agentEntries: executeReportEntries({
        config,
        unavailableReason: sandbox.available ? undefined : sandbox.reason,
        networkPolicy: settings.execute.network,
        // Like stdio MCP servers above: the operator's own machine, judged as an admin's agent.
        ownerIsAdmin: true,
      }),
    });
    console.log(
      values.json ? JSON.stringify(report, null, 2) : formatBuildReport(`Agent: ${definition.name}`, report),
    );
    return report.dropped ? 1 : 0;
  } finally {
    await mcp.close();
  }
}
