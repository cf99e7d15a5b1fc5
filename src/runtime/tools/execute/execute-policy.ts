import type { ExecuteNetworkPolicy, ExecuteSettings } from '../../../execute-settings.js';
import type { Storage } from '../../../core/ports/storage.js';
import type { AgentExecuteConfig } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import type { SandboxLimits } from './sandbox.js';

/** What one run's `execute` calls get: network or not, and the limits (before a call's own `timeout_ms`). */
export interface ExecutePolicy {
  network: boolean;
  limits: SandboxLimits;
}

const MB = 1024 * 1024;

/** The server's settings, lowered (never raised) by the agent's `config.execute`. */
export function executeLimits(
  settings: ExecuteSettings,
  config: AgentExecuteConfig | undefined,
): SandboxLimits {
  const lower = (ceiling: number, wanted: number | undefined) =>
    wanted === undefined ? ceiling : Math.min(ceiling, wanted);
  return {
    timeoutMs: lower(settings.timeoutMs, config?.timeout_ms),
    cpuSeconds: lower(settings.cpuSeconds, config?.cpu_seconds),
    memoryBytes: lower(
      settings.memoryBytes,
      config?.memory_mb === undefined ? undefined : config.memory_mb * MB,
    ),
    maxProcesses: lower(settings.maxProcesses, config?.max_processes),
    outputBytes: lower(settings.outputBytes, config?.output_bytes),
    fileBytes: settings.fileBytes,
    tmpBytes: settings.tmpBytes,
  };
}

/**
 * Sharing the host network reaches loopback and private addresses (databases, cloud metadata) that the
 * egress policy keeps from non-admins, so by default only admins' agents get it.
 */
export function networkAllowed(policy: ExecuteNetworkPolicy, ownerIsAdmin: boolean): boolean {
  return policy === 'any' || (policy === 'admin' && ownerIsAdmin);
}

/** Reads the run's agent (an inline subagent runs under its parent's record) and the agent owner's role. */
export function createExecutePolicyResolver(deps: {
  storage: Storage;
  settings: ExecuteSettings;
}): (run: Run) => Promise<ExecutePolicy> {
  return async (run) => {
    const agent = await deps.storage.agents.get(run.agent_id);
    const config = agent?.config.execute;
    let network = false;
    if (agent && config?.network === true) {
      const owner = await deps.storage.users.get(agent.owner_id);
      network = networkAllowed(deps.settings.network, owner?.role === 'admin');
    }
    return { network, limits: executeLimits(deps.settings, config) };
  };
}
