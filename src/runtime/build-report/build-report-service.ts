import { canManageAgent } from '../../core/agent-access-policy.js';
import { draftAgent } from '../../core/draft-agent.js';
import { TroupeError } from '../../core/errors.js';
import { keepRedactedSecrets } from '../../core/mcp-secrets.js';
import type { Storage } from '../../core/ports/storage.js';
import type { ToolSource } from '../../core/ports/tool-source.js';
import type { Agent } from '../../core/records/agent.js';
import type { Actor } from '../../core/records/user.js';
import { resolveAllowedSubagents } from '../../core/subagents/allowed-subagents.js';
import { knowledgeSourceRefs, refFilter } from '../../core/knowledge/knowledge-source-refs.js';
import type { AgentService } from '../agents/agent-service.js';
import { agentConfigSchema } from '../agents/agent-config-schema.js';
import { parseOrThrow } from '../../core/to-validation-error.js';
import type { BuildReportEntry } from '../../core/subagent-specs/build-report-entry.js';
import { computeBuildReport, type BuildReport } from './compute-build-report.js';
import { unprojectableSkills } from './unprojectable-skills.js';

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
  /** Agent-level entries from other parts of the server (e.g. why `execute` is not offered). */
  agentEntries?: (agent: Agent) => Promise<BuildReportEntry[]>;
}

export interface BuildReportService {
  /** Same permission as the agent's detail: anyone who may use it may read its report. */
  forAgent(actor: Actor, idOrSlug: string): Promise<BuildReport>;
  /** For an agent the caller already holds (create and update responses). */
  forRecord(actor: Actor, agent: Agent): Promise<BuildReport>;
  /**
   * A draft config (the console's live editor), validated like an agent's config; nothing is stored.
   * With `agentId` (an agent the actor may change), redacted MCP secrets take that agent's stored values.
   */
  forDraft(actor: Actor, config: unknown, agentId?: string): Promise<BuildReport>;
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
    const [probe, visible, agentEntries, skills, knowledgeSources] = await Promise.all([
      probeServers(),
      deps.storage.agents.listUsable(actor, { include_subagents: true }),
      deps.agentEntries?.(agent),
      deps.storage.skills.listUsable(actor),
      refs.length === 0 ? [] : deps.storage.knowledgeSources.listUsable(actor, refFilter(refs)),
    ]);
    return computeBuildReport({
      config: agent.config,
      catalogue: deps.catalogue,
      probe,
      // The registered subagents this caller would see next to the specs at run time.
      registeredSlugs: resolveAllowedSubagents(visible, agent.config.subagents).map(
        (subagent) => subagent.slug,
      ),
      defaultModel: deps.defaultModel,
      agentEntries,
      visibleSkills: skills.map((skill) => skill.name),
      unprojectableSkills: await unprojectableSkills(deps.storage, skills, agent.config),
      knowledgeSources,
    });
  }

  /** Only those who may change an agent (owner, admin) may have a draft probed with its stored secrets. */
  async function manageable(actor: Actor, idOrSlug: string): Promise<Agent> {
    const agent = await deps.agents.get(actor, idOrSlug);
    if (!canManageAgent(actor, agent)) {
      throw new TroupeError(
        'forbidden',
        `Only the owner or an admin can check drafts of agent "${agent.slug}"`,
      );
    }
    return agent;
  }

  return {
    forRecord,
    async forAgent(actor, idOrSlug) {
      return forRecord(actor, await deps.agents.get(actor, idOrSlug));
    },
    async forDraft(actor, rawConfig, agentId) {
      const parsed = parseOrThrow(agentConfigSchema, rawConfig, 'config');
      const stored = agentId === undefined ? undefined : await manageable(actor, agentId);
      // A placeholder with nothing behind it is no secret: it may go to the server as it is.
      const config = keepRedactedSecrets(parsed, stored?.config, { unmatched: 'leave' });
      return forRecord(actor, draftAgent(config, actor.id));
    },
  };
}
