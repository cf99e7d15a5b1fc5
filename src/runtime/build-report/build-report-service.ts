import type { Storage } from '../../core/ports/storage.js';
import type { ToolSource } from '../../core/ports/tool-source.js';
import type { Agent } from '../../core/records/agent.js';
import type { Actor } from '../../core/records/user.js';
import { resolveAllowedSubagents } from '../../core/subagents/allowed-subagents.js';
import { knowledgeSourceRefs, refFilter } from '../../core/knowledge/knowledge-source-refs.js';
import type { AgentService } from '../agent-service.js';
import { agentConfigSchema } from '../agent-config-schema.js';
import { parseOrThrow } from '../to-validation-error.js';
import { computeBuildReport, type BuildReport } from './compute-build-report.js';

export interface BuildReportServiceDeps {
  storage: Storage;
  agents: AgentService;
  /** Names of the built-in tool catalogue. */
  catalogue: readonly string[];
  /** Lists MCP tool names; without one, MCP names are reported as unverified. */
  toolSource?: ToolSource;
  defaultModel: string;
  /** How long a report waits for an MCP server to list its tools; default 3 s. */
  probeTimeoutMs?: number;
}

export interface BuildReportService {
  /** Same permission as the agent's detail: anyone who may use it may read its report. */
  forAgent(actor: Actor, idOrSlug: string): Promise<BuildReport>;
  /** For an agent the caller already holds (create and update responses). */
  forRecord(actor: Actor, agent: Agent): Promise<BuildReport>;
  /** A draft config (the console's live editor), validated like an agent's config; nothing is stored. */
  forDraft(actor: Actor, config: unknown): Promise<BuildReport>;
}

export function createBuildReportService(deps: BuildReportServiceDeps): BuildReportService {
  const probeTimeoutMs = deps.probeTimeoutMs ?? 3_000;

  async function forRecord(actor: Actor, agent: Agent): Promise<BuildReport> {
    const hasServers = (agent.config.mcp_servers ?? []).length > 0;
    const probeServers = async () => {
      if (!hasServers) return { tool_names: [], unreachable: [], refused: [] };
      // No source that can list tools: the report says the MCP names are unverified.
      return deps.toolSource?.probe?.(agent, { timeoutMs: probeTimeoutMs });
    };
    const refs = knowledgeSourceRefs(agent.config);
    const [probe, visible, knowledgeSources] = await Promise.all([
      probeServers(),
      deps.storage.agents.listUsable(actor, { include_subagents: true }),
      refs.length === 0 ? [] : deps.storage.knowledgeSources.listUsable(actor, refFilter(refs)),
    ]);
    return computeBuildReport({
      config: agent.config,
      catalogue: deps.catalogue,
      probe,
      // The registered subagents this caller would see next to the specs at run time.
      registeredSlugs: resolveAllowedSubagents(visible, agent.config.subagents).map((subagent) => subagent.slug),
      defaultModel: deps.defaultModel,
      knowledgeSources,
    });
  }

  return {
    forRecord,
    async forAgent(actor, idOrSlug) {
      return forRecord(actor, await deps.agents.get(actor, idOrSlug));
    },
    async forDraft(actor, rawConfig) {
      const config = parseOrThrow(agentConfigSchema, rawConfig, 'config');
      const now = new Date(0).toISOString();
      // A stand-in record: owned by the caller, so the MCP policy judges the draft as the caller's own agent.
      const draft: Agent = {
        id: 'agt_draft',
        slug: 'draft',
        name: 'draft',
        description: '',
        backend: 'chat',
        is_subagent: false,
        owner_id: actor.id,
        visibility: 'private',
        config,
        status: 'draft',
        delegatable: false,
        delegation_brief: null,
        is_default: false,
        deleted_at: null,
        created_at: now,
        updated_at: now,
      };
      return forRecord(actor, draft);
    },
  };
}
