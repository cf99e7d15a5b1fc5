import type { ExecuteNetworkPolicy, ExecuteSettings } from '../../../execute-settings.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { AgentConfig } from '../../../core/records/agent.js';
import type { BuildReportEntry } from '../../../core/subagent-specs/build-report-entry.js';
import { selectByPatterns } from '../../../core/tool-patterns.js';
import type { AnyTroupeTool } from '../../../core/tools/troupe-tool.js';
import { createExecutePolicyResolver, networkAllowed } from './execute-policy.js';
import { createExecuteTool } from './execute-tool.js';
import { probeSandbox, type SandboxAvailability } from './probe-sandbox.js';

export interface ExecuteSupport {
  /** `[execute]` when the sandbox works here, else none: the tool never runs unsandboxed. */
  tools: AnyTroupeTool[];
  /** Why `execute` is not offered, for the start-up log and build reports. */
  unavailableReason: string | undefined;
  /** Agent-level build report entries about `execute` for this agent. */
  reportEntries(agent: { owner_id: string; config: AgentConfig }): Promise<BuildReportEntry[]>;
}

export interface ExecuteReportInput {
  config: AgentConfig;
  unavailableReason: string | undefined;
  networkPolicy: ExecuteNetworkPolicy;
  ownerIsAdmin: boolean;
}

/** Pure: what an author should know about `execute` for this config on this server. */
export function executeReportEntries(input: ExecuteReportInput): BuildReportEntry[] {
  const entries: BuildReportEntry[] = [];
  // Only an agent that names its tools asked for execute; "every tool" means every tool this server offers.
  const tools = input.config.tools;
  const selected = tools !== undefined && selectByPatterns([{ name: 'execute' }], tools).length > 0;
  if (selected && input.unavailableReason !== undefined) {
    entries.push({
      code: 'tool_unavailable',
      spec_index: null,
      value: 'execute',
      message: `execute is unavailable: ${input.unavailableReason}`,
    });
  }
  if (input.config.execute?.network === true && !networkAllowed(input.networkPolicy, input.ownerIsAdmin)) {
    entries.push({
      code: 'execute_network_denied',
      spec_index: null,
      value: 'execute.network',
      message:
        input.networkPolicy === 'off'
          ? 'execute.network is ignored: this server gives execute no network (TROUPE_EXECUTE_NETWORK=off)'
          : 'execute.network is ignored: only agents owned by an admin get the host network (TROUPE_EXECUTE_NETWORK=admin)',
    });
  }
  return entries;
}

/**
 * Probes the sandbox once and builds what the composition root wires: the tool (or nothing, with the
 * reason logged) and the build report entries.
 */
export async function createExecuteSupport(deps: {
  settings: ExecuteSettings;
  storage: Storage;
  warn?: (message: string) => void;
  probe?: (settings: ExecuteSettings) => Promise<SandboxAvailability>;
}): Promise<ExecuteSupport> {
  const probe =
    deps.probe ??
    ((settings) => probeSandbox({ bwrapPath: settings.bwrapPath, sandboxUid: settings.sandboxUid }));
  const availability = await probe(deps.settings);
  const unavailableReason = availability.available ? undefined : availability.reason;
  if (unavailableReason !== undefined) deps.warn?.(`execute is unavailable: ${unavailableReason}`);
  const tools = availability.available
    ? [
        createExecuteTool({
          sandbox: availability.sandbox,
          policyFor: createExecutePolicyResolver({ storage: deps.storage, settings: deps.settings }),
        }),
      ]
    : [];
  return {
    tools,
    unavailableReason,
    async reportEntries(agent) {
      const owner =
        agent.config.execute?.network === true ? await deps.storage.users.get(agent.owner_id) : undefined;
      return executeReportEntries({
        config: agent.config,
        unavailableReason,
        networkPolicy: deps.settings.network,
        ownerIsAdmin: owner?.role === 'admin',
      });
    },
  };
}
