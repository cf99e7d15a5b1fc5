import type { Storage } from '../../../core/ports/storage.js';
import type { Agent } from '../../../core/records/agent.js';
import type { Run } from '../../../core/records/run.js';
import { runCapabilities } from '../../../core/runs/run-capabilities.js';
import type { AgentMiddleware } from '../../../core/ports/agent-middleware.js';
import { createApprovalMiddleware } from '../../middleware/approval-middleware.js';
import { createSubagentToolFilterMiddleware } from '../../middleware/subagent-tool-filter-middleware.js';
import { createToolAvailabilityMiddleware } from '../../middleware/tool-availability-middleware.js';
import { createToolResultOffloadMiddleware } from '../../tool-results/tool-result-offload-middleware.js';

/**
 * The one ordered middleware list of a run, outermost first:
 * 1. the configured layers (`extra`: subagents, delegation, skills, knowledge, tracing…), which add tools;
 *    then the offload of big tool results, so every layer above sees what the model will read;
 * 2. the guards, which see every tool any layer added: on a subagent run the subagent filter answers first
 *    (its refusal is the more specific one), then calls the model was not offered are refused; on a main run
 *    only calls that would really execute may wait for an approval;
 * 3. the context window (docs/model-calls.md#compaction): the prompt every layer above built is compacted
 *    when it passes the model's window, and the summary's calls go through the gate like any other;
 * 4. the gate, innermost of all: only calls that would really run are admitted, charged and counted on the
 *    run's usage (docs/usage.md), so the ledger and the usage see the same calls.
 */
export function runMiddlewareStack(options: {
  storage: Storage;
  run: Run;
  agent: Agent;
  extra: AgentMiddleware[];
  context: AgentMiddleware;
  gate: AgentMiddleware;
  /** Tool results over this many tokens are kept in workdir files (docs/model-calls.md#big-tool-results). */
  toolResultMaxTokens: number;
}): AgentMiddleware[] {
  const { run, agent } = options;
  const guards = runCapabilities(run, agent).subagent
    ? [createSubagentToolFilterMiddleware(run.tool_approval_mode), createToolAvailabilityMiddleware()]
    : [createToolAvailabilityMiddleware(), createApprovalMiddleware(options.storage)];
  const offload = createToolResultOffloadMiddleware(options.toolResultMaxTokens);
  return [...options.extra, offload, ...guards, options.context, options.gate];
}
