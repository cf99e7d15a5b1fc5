import type { ToolSourceProbe } from '../../core/ports/tool-source.js';
import type { AgentConfig } from '../../core/records/agent.js';
import { buildAgentSubagents } from '../../core/subagent-specs/build-agent-subagents.js';
import { isDrop, type BuildReportEntry } from '../../core/subagent-specs/build-report-entry.js';
import type { ResolvedSubagent } from '../../core/subagent-specs/resolved-subagent.js';
import { selectByPatterns } from '../../core/tool-patterns.js';
import { skillReportEntries } from './skill-report-entries.js';
import { knowledgeSourceRefs, knowledgeSourceReport } from '../../core/knowledge/knowledge-source-refs.js';

/** The authoring view of an agent's subagents (docs/inline-subagents.md): what runs, and everything that was dropped. */
export interface BuildReport {
  /** Agent-level entries (MCP servers) first, then spec entries in spec order, then skill entries. */
  report: BuildReportEntry[];
  /** True when a spec or a value was dropped; warnings alone leave it false. */
  dropped: boolean;
  /** Built-ins and inline specs as they resolve now (registered subagents come after them at run time). */
  subagents: ResolvedSubagent[];
  /** The parent tool set the specs were resolved against. */
  parent_tools: string[];
}

export interface BuildReportInput {
  config: AgentConfig;
  /** Names of the built-in tool catalogue; `config.tools` patterns select from it. */
  catalogue: readonly string[];
  /** The MCP listing; without one, names under `mcp__` are reported as unverified rather than dropped. */
  probe?: ToolSourceProbe;
  registeredSlugs?: readonly string[];
  /** Inherited by specs without a model when the agent names none either. */
  defaultModel: string;
  /** Further agent-level entries (e.g. a catalogue tool this server cannot offer), after the MCP ones. */
  agentEntries?: readonly BuildReportEntry[];
  /** Skill names the author may use; without it skill names are checked for shape only. */
  visibleSkills?: readonly string[];
  /** Selected skills whose stored files cannot be projected into a workdir, with why. */
  unprojectableSkills?: ReadonlyMap<string, string>;
  /** The configured knowledge sources the caller can read; when given, the others are reported. */
  knowledgeSources?: readonly { id: string; name: string }[];
}

/** Pure: the same builder as the run time, loud instead of silent. */
export function computeBuildReport(input: BuildReportInput): BuildReport {
  const { config } = input;
  const catalogue = selectByPatterns(
    input.catalogue.map((name) => ({ name })),
    config.tools,
  ).map((tool) => tool.name);
  const probe = input.probe ?? { tool_names: [], unreachable: [], refused: [] };
  const parentTools = [...new Set([...catalogue, ...probe.tool_names])];
  const agentEntries: BuildReportEntry[] = [
    ...probe.unreachable.map((server) => ({
      code: 'mcp_unreachable' as const,
      spec_index: null,
      value: server.server,
      message: `MCP server "${server.server}" could not be listed (${server.message}); its tool names are not checked`,
    })),
    ...probe.refused.map((server) => ({
      code: 'mcp_not_allowed' as const,
      spec_index: null,
      value: server.server,
      message: `MCP server "${server.server}" is not started for this agent: ${server.message}`,
    })),
    ...(input.agentEntries ?? []),
  ];
  if (input.knowledgeSources)
    agentEntries.push(...knowledgeSourceReport(knowledgeSourceRefs(config), input.knowledgeSources));
  // Without a listing at all, MCP names cannot be checked: unverified, not dropped.
  const unverified = input.probe ? probe.unreachable.map((server) => server.prefix) : ['mcp__'];
  const built = buildAgentSubagents({
    config,
    parentTools,
    parentModel: config.model ?? input.defaultModel,
    approvalMode: config.tool_approval_mode ?? 'default',
    registeredSlugs: input.registeredSlugs,
    unverifiedPrefixes: unverified,
  });
  const report = [
    ...agentEntries,
    ...built.report,
    ...skillReportEntries(config, built.subagents, input.visibleSkills, input.unprojectableSkills),
  ];
  return { report, dropped: report.some(isDrop), subagents: built.subagents, parent_tools: parentTools };
}
