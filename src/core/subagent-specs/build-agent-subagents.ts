import type { AgentConfig, ToolApprovalMode } from '../records/agent.js';
import { SENSITIVE_TOOLS } from '../subagents/subagent-tool-policy.js';
import { buildSubagentSpecs, type BuildSubagentSpecsResult } from './build-subagent-specs.js';
import { generalPurposeSubagent } from './general-purpose-subagent.js';

export interface AgentSubagentsInput {
  config: AgentConfig;
  /** The parent agent's tool names (catalogue tools its patterns select, plus its MCP tools). */
  parentTools: readonly string[];
  parentModel: string;
  /** Outside `always_trust`, subagents do not get the sensitive tools (docs/subagents.md). */
  approvalMode: ToolApprovalMode;
  registeredSlugs?: readonly string[];
  unverifiedPrefixes?: readonly string[];
}

/**
 * An agent's built-in and inline subagents, the one place that decides which built-ins exist and which
 * tools are disabled, so the run-time namespace, the executor and the build report always agree.
 */
export function buildAgentSubagents(input: AgentSubagentsInput): BuildSubagentSpecsResult {
  const disabledTools = input.approvalMode === 'always_trust' ? [] : [...SENSITIVE_TOOLS];
  const builtins =
    input.config.disable_general_purpose === true
      ? []
      : [
          generalPurposeSubagent({
            parentTools: input.parentTools,
            parentModel: input.parentModel,
            disabledTools,
          }),
        ];
  return buildSubagentSpecs({
    specs: input.config.subagent_specs ?? [],
    parentTools: input.parentTools,
    parentModel: input.parentModel,
    builtins,
    disabledTools,
    registeredSlugs: input.registeredSlugs,
    unverifiedPrefixes: input.unverifiedPrefixes,
  });
}
